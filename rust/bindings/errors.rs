//! The one place where engine errors become Python exceptions (classes from toolsift.errors).

use pyo3::exceptions::PyValueError;
use pyo3::PyErr;

use crate::error::Error;

pyo3::import_exception!(toolsift.errors, QueryError);
pyo3::import_exception!(toolsift.errors, SnapshotError);
pyo3::import_exception!(toolsift.errors, ProfileError);
pyo3::import_exception!(toolsift.errors, PatternError);

impl From<Error> for PyErr {
    fn from(err: Error) -> PyErr {
        let msg = err.to_string();
        match err {
            Error::EmptyQuery | Error::NoSearchableTerms => QueryError::new_err(msg),
            Error::Snapshot(_) => SnapshotError::new_err(msg),
            Error::UnknownProfile(_) => ProfileError::new_err(msg),
            Error::Pattern(_) => PatternError::new_err(msg),
            Error::InvalidDocument(_) | Error::Unchecked(_) => PyValueError::new_err(msg),
        }
    }
}
