"""BERT's uncased WordPiece tokenization in pure Python, for the static encoder.

The same steps as the model's own tokenizer (``all-MiniLM-L6-v2``'s ``tokenizer.json``: BERT's
normaliser, pre-tokenizer and WordPiece model): control characters dropped, every CJK ideograph
a word of its own, lower case, accents stripped, words split at whitespace and at each
punctuation character, then each word matched greedily, longest piece first, against the
vocabulary (``##`` for a piece inside a word; a word it cannot cover, or longer than 100
characters, is ``[UNK]``).

A query is a few words, and the words of queries and tools repeat: each word's pieces are
remembered, so a query tokenizes in microseconds, where the ``tokenizers`` package spends about
0.1 ms crossing into Rust and back for one short text.

Example:
    >>> wp = WordPiece({"[UNK]": 0, "read": 1, "file": 2, "##s": 3, "_": 4})
    >>> wp.ids("Read_files!")
    [1, 4, 2, 3, 0]
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping

__all__ = ["WordPiece"]

#: Longest word WordPiece splits (BERT's ``max_input_chars_per_word``).
MAX_WORD_CHARS = 100
#: Words remembered at most (the memo is cleared when full).
MEMO_SIZE = 200_000
_ASCII_PUNCT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")


def _is_cjk(cp: int) -> bool:
    return (
        0x4E00 <= cp <= 0x9FFF
        or 0x3400 <= cp <= 0x4DBF
        or 0x20000 <= cp <= 0x2A6DF
        or 0x2A700 <= cp <= 0x2B73F
        or 0x2B740 <= cp <= 0x2B81F
        or 0x2B820 <= cp <= 0x2CEAF
        or 0xF900 <= cp <= 0xFAFF
        or 0x2F800 <= cp <= 0x2FA1F
    )


def _is_punct(ch: str) -> bool:
    return ch in _ASCII_PUNCT or unicodedata.category(ch).startswith("P")


def _words_of_chunk(chunk: str, out: list[str]) -> None:
    """The words of a whitespace-free, lower-cased, accent-free ``chunk`` (slow path)."""
    word: list[str] = []
    for ch in chunk:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD or unicodedata.category(ch) in ("Cc", "Cf"):
            continue
        if _is_punct(ch) or _is_cjk(cp):
            if word:
                out.append("".join(word))
                word = []
            out.append(ch)
        else:
            word.append(ch)
    if word:
        out.append("".join(word))


def basic_words(text: str) -> list[str]:
    """BERT's basic tokenization of ``text`` (uncased).

    Example:
        >>> basic_words("Café: naïve-résumé 東京!")
        ['cafe', ':', 'naive', '-', 'resume', '東', '京', '!']
    """
    text = text.lower()
    ascii_text = text.isascii()
    if not ascii_text:
        text = "".join(
            c for c in unicodedata.normalize("NFD", text) if unicodedata.category(c) != "Mn"
        )
    out: list[str] = []
    for chunk in text.split():
        if chunk.isalnum() and (ascii_text or chunk.isascii()):
            out.append(chunk)
        else:
            _words_of_chunk(chunk, out)
    return out


class WordPiece:
    """A WordPiece vocabulary (token -> id) and its tokenization.

    Arguments:
        vocab: every token and its id; must hold ``[UNK]``.
    """

    def __init__(self, vocab: Mapping[str, int]) -> None:
        self._vocab = dict(vocab)
        self.unk = self._vocab["[UNK]"]
        self._memo: dict[str, tuple[int, ...]] = {}

    def __len__(self) -> int:
        return len(self._vocab)

    def word_ids(self, word: str) -> tuple[int, ...]:
        """The ids of one basic word (remembered)."""
        memo = self._memo
        got = memo.get(word)
        if got is not None:
            return got
        got = self._pieces(word)
        if len(memo) >= MEMO_SIZE:
            memo.clear()
        memo[word] = got
        return got

    def _pieces(self, word: str) -> tuple[int, ...]:
        if len(word) > MAX_WORD_CHARS:
            return (self.unk,)
        vocab = self._vocab
        whole = vocab.get(word)
        if whole is not None:
            return (whole,)
        pieces: list[int] = []
        start, n = 0, len(word)
        while start < n:
            end = n
            found = None
            while start < end:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                found = vocab.get(piece)
                if found is not None:
                    break
                end -= 1
            if found is None:
                return (self.unk,)
            pieces.append(found)
            start = end
        return tuple(pieces)

    def ids(self, text: str) -> list[int]:
        """The token ids of ``text`` (no ``[CLS]``/``[SEP]``)."""
        out: list[int] = []
        for word in basic_words(text):
            out.extend(self.word_ids(word))
        return out
