// The toolsift dashboard page: plain DOM, no dependencies, nothing fetched but this server's API.
"use strict";

const $ = (sel) => document.querySelector(sel);

// el("td", {class: "num"}, "text", child): text is always set as text, never parsed as HTML.
function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function svg(tag, attrs, ...children) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
  for (const child of children) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return node;
}

// --- the API ------------------------------------------------------------------------------------

const tokenFromHash = new URLSearchParams(location.hash.slice(1)).get("token");
if (tokenFromHash) {
  sessionStorage.setItem("toolsift-token", tokenFromHash);
  history.replaceState(null, "", location.pathname + location.search);
}

async function api(path, options = {}) {
  const headers = { ...(options.headers || {}) };
  const token = sessionStorage.getItem("toolsift-token");
  if (token) headers.Authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, { ...options, headers });
  let body = null;
  try { body = await response.json(); } catch (_) { body = { error: response.statusText }; }
  if (response.status === 401) {
    $("#token-box").hidden = false;
    banner(body.error || "a dashboard token is needed");
  }
  return { ok: response.ok, status: response.status, body };
}

function banner(text) {
  const box = $("#banner");
  box.textContent = text || "";
  box.hidden = !text;
}

$("#token-box").addEventListener("submit", (event) => {
  event.preventDefault();
  sessionStorage.setItem("toolsift-token", $("#token").value);
  $("#token-box").hidden = true;
  banner("");
  refreshAll();
});

const fmt = (n) => Number(n).toLocaleString("en-US");
const score = (n) => (n === null || n === undefined ? "–" : Number(n).toFixed(3));

// --- the catalogue ------------------------------------------------------------------------------

let catalog = { servers: [], tools: [] };

async function loadCatalog() {
  const { ok, body } = await api("/api/catalog");
  if (!ok) return;
  catalog = body;
  $("#source").textContent = body.live ? `live gateway: ${body.servers.length} servers` : body.source;
  $("#catalog-summary").textContent =
    `${fmt(body.total_tools)} tools · ${fmt(body.total_schema_tokens)} schema tokens`;
  const rows = body.servers.map((s) =>
    el("tr", { "data-server": s.name },
      el("td", {}, s.name),
      el("td", {}, el("span", { class: `state ${s.state}`, title: s.error || "" }, s.state)),
      el("td", { class: "num" }, fmt(s.tools)),
      el("td", { class: "num" }, fmt(s.schema_tokens))));
  $("#servers tbody").replaceChildren(...rows);
  renderTools();
  renderPicker();
}

function renderTools() {
  const needle = $("#tool-filter").value.trim().toLowerCase();
  const items = catalog.tools
    .filter((t) => !needle || t.name.toLowerCase().includes(needle))
    .map((t) =>
      el("li", {},
        el("button", { type: "button", class: "tool", "data-name": t.name, title: t.description,
                       onclick: () => showTool(t.name) },
          el("span", { class: "name" }, t.name),
          el("span", { class: "muted" }, `${fmt(t.schema_tokens)} tok`))));
  $("#tools").replaceChildren(...items);
}

async function showTool(name) {
  const { ok, body } = await api(`/api/tool?name=${encodeURIComponent(name)}`);
  if (!ok) return;
  document.querySelectorAll("#tools button.active").forEach((b) => b.classList.remove("active"));
  const button = document.querySelector(`#tools button[data-name="${CSS.escape(name)}"]`);
  if (button) button.classList.add("active");
  $("#tool-detail").hidden = false;
  $("#tool-detail-name").textContent = `${body.name} · ${fmt(body.schema_tokens)} tokens`;
  $("#tool-definition").textContent = JSON.stringify(body.definition, null, 2);
}

$("#tool-filter").addEventListener("input", renderTools);

// --- settings -----------------------------------------------------------------------------------

let settings = null;

async function loadSettings() {
  const { ok, body } = await api("/api/settings");
  if (ok) showSettings(body);
}

function showSettings(view) {
  settings = view;
  const form = $("#settings-form");
  for (const [field, choices] of Object.entries(view.choices)) {
    const select = form.elements[field];
    // Choices are JSON values (semantic: "auto", true, false): an option holds their text.
    select.replaceChildren(...choices.map((c) => el("option", { value: String(c) }, String(c))));
  }
  const s = view.settings;
  for (const field of view.editable) {
    const input = form.elements[field];
    if (!input || field === "always_available") continue;
    if (input.type === "checkbox") input.checked = Boolean(s[field]);
    else input.value = s[field] === undefined || s[field] === null ? (field === "rate_limit" ? "off" : "") : String(s[field]);
  }
  $("#semantic-on").textContent = view.semantic_on ? "(ranking by meaning now)" : "(BM25+ now)";
  $("#restart-only").textContent =
    `style: ${s.style} · search tool: ${s.meta_tool_name} (these change with a restart)` +
    (view.saveable ? ` · saves to ${view.config_path}` : " · no config file: saving is off");
  $("#save").disabled = !view.saveable;
  renderPicker();
}

function chosenAlways() {
  return new Set(settings ? settings.settings.always_available : []);
}

function renderPicker() {
  if (!settings) return;
  const picked = pickerState || chosenAlways();
  pickerState = picked;
  const needle = $("#always-filter").value.trim().toLowerCase();
  const option = (name, cls) =>
    el("label", { class: cls },
      el("input", { type: "checkbox", value: name, checked: picked.has(name),
                    onchange: (e) => { e.target.checked ? picked.add(name) : picked.delete(name); countAlways(); } }),
      ` ${name}`);
  const servers = catalog.servers.map((s) => s.name).filter((n) => !needle || n.toLowerCase().includes(needle));
  const tools = catalog.tools.map((t) => t.name).filter((n) => !needle || n.toLowerCase().includes(needle));
  const known = new Set([...catalog.servers.map((s) => s.name), ...catalog.tools.map((t) => t.name)]);
  const other = [...picked].filter((n) => !known.has(n));
  $("#always-list").replaceChildren(
    ...servers.map((n) => option(n, "server")), ...other.map((n) => option(n, "")),
    ...tools.map((n) => option(n, "")));
  countAlways();
}

let pickerState = null;

function countAlways() {
  $("#always-count").textContent = `${pickerState ? pickerState.size : 0} chosen`;
}

$("#always-filter").addEventListener("input", renderPicker);

function formValues() {
  const form = $("#settings-form");
  const values = {};
  for (const field of settings.editable) {
    if (field === "always_available") continue;
    const input = form.elements[field];
    if (input.type === "checkbox") values[field] = input.checked;
    else if (input.type === "number") values[field] = input.value === "" ? null : Number(input.value);
    else if (settings.choices[field]) {
      // The choice whose text is selected, as its JSON value (true, not "true").
      const choice = settings.choices[field].find((c) => String(c) === input.value);
      values[field] = choice === undefined ? input.value : choice;
    } else values[field] = input.value;
  }
  values.always_available = [...(pickerState || chosenAlways())];
  return values;
}

async function submitSettings(save) {
  const form = $("#settings-form");
  form.querySelectorAll(".field-error").forEach((e) => { e.textContent = ""; });
  form.querySelectorAll(".invalid").forEach((e) => e.classList.remove("invalid"));
  $("#settings-status").textContent = "…";
  const { ok, body } = await api("/api/settings", {
    method: "PUT", body: JSON.stringify({ tool_search: formValues(), save }),
  });
  if (!ok) {
    const field = body.field || "tool_search";
    const slot = form.querySelector(`.field-error[data-field="${CSS.escape(field)}"]`) ||
                 form.querySelector('.field-error[data-field="tool_search"]');
    slot.textContent = body.error;
    if (form.elements[field]) form.elements[field].classList.add("invalid");
    $("#settings-status").textContent = "not applied";
    return;
  }
  pickerState = null;
  showSettings(body);
  $("#settings-status").textContent = save ? `applied and saved to ${body.config_path}` : "applied";
}

$("#settings-form").addEventListener("submit", (event) => { event.preventDefault(); submitSettings(false); });
$("#save").addEventListener("click", () => submitSettings(true));

// --- try it -------------------------------------------------------------------------------------

function explanationTable(why) {
  const max = Math.max(...why.terms.map((t) => t.contribution), 1e-9);
  const fieldText = (fields) => Object.entries(fields).map(([f, v]) => `${f} ${Number(v).toFixed(2)}`).join(", ");
  return el("table", { class: "explanation" },
    el("thead", {}, el("tr", {},
      el("th", {}, "term"), el("th", {}, "matched"), el("th", {}, "idf"), el("th", {}, "tf"),
      el("th", {}, "norm"), el("th", {}, "contribution"), el("th", {}, "fields (tf by field)"))),
    el("tbody", {}, why.terms.map((t) => el("tr", {},
      el("td", {}, t.term),
      el("td", {}, t.matched + (t.prefix ? " (prefix)" : "")),
      el("td", {}, score(t.idf)), el("td", {}, score(t.tf)), el("td", {}, score(t.norm)),
      el("td", {}, el("span", { class: "bar", style: `width:${Math.round(60 * t.contribution / max)}px` }), score(t.contribution)),
      el("td", { style: "text-align:left" }, fieldText(t.fields))))),
    el("tfoot", {}, el("tr", {}, el("td", { colspan: 5 }, "score"), el("td", {}, score(why.score)), el("td", {}))));
}

async function runSearch() {
  const params = new URLSearchParams({ q: $("#query").value, contract: $("#contract").value });
  if ($("#limit").value) params.set("limit", $("#limit").value);
  const { ok, body } = await api(`/api/search?${params}`);
  const error = $("#search-error");
  if (!ok) {
    error.textContent = body.error;
    error.hidden = false;
    $("#results").hidden = true;
    $("#response-box").hidden = true;
    return;
  }
  error.hidden = true;
  $("#search-meta").textContent =
    `${body.kind} query · ${body.matches.length} of ${fmt(body.total_tools)} hidden tools · limit ${body.limit}` +
    (body.already_active.length ? ` · already available: ${body.already_active.join(", ")}` : "");
  const rows = [];
  for (const m of body.matches) {
    rows.push(el("tr", { class: "match", "data-name": m.name },
      el("td", {}, m.rank),
      el("td", {}, el("span", { class: "name" }, m.name)),
      el("td", {}, el("span", { class: "reason" }, m.reason)),
      el("td", { class: "num score" }, score(m.score)),
      el("td", { class: "num norm" }, score(m.normalized_score))));
    if (m.explanation) {
      rows.push(el("tr", { class: "explain", "data-name": m.name },
        el("td", {}), el("td", { colspan: 4 }, explanationTable(m.explanation))));
    }
  }
  $("#results tbody").replaceChildren(...rows);
  $("#results").hidden = rows.length === 0;
  const missing = $("#missing");
  if (body.missing.length) {
    missing.replaceChildren(el("strong", {}, "missing: "), ...body.missing.map((name) => {
      const hints = body.suggestions[name] || [];
      return el("div", { class: "missing-name" }, el("code", {}, name),
        hints.length ? ` — did you mean ${hints.join(", ")}?` : " — no similar name");
    }));
    missing.hidden = false;
  } else {
    missing.hidden = true;
  }
  const response = typeof body.response === "string" ? JSON.parse(body.response) : body.response;
  $("#response").textContent = JSON.stringify(response, null, 2);
  $("#response-box").hidden = false;
}

$("#search-form").addEventListener("submit", (event) => { event.preventDefault(); runSearch(); });

// --- live sessions ------------------------------------------------------------------------------

function savingsChart(tokens) {
  const width = 320, bar = 16, max = Math.max(tokens.all_schemas, tokens.sent, 1);
  const rows = [["all schemas", tokens.all_schemas, "#c3cad8"], ["sent", tokens.sent, "#2f6fde"]];
  const chart = svg("svg", { class: "savings", width: width + 150, height: 2 * (bar + 8) + 16,
                             role: "img", "aria-label": `token savings: ${tokens.saved} tokens` });
  rows.forEach(([label, value, color], i) => {
    const y = i * (bar + 8);
    chart.append(svg("text", { x: 0, y: y + bar - 4 }, label));
    chart.append(svg("rect", { x: 75, y, width: Math.max(1, Math.round(width * value / max)), height: bar, fill: color, rx: 2 }));
    chart.append(svg("text", { x: 80 + Math.round(width * value / max), y: y + bar - 4 }, fmt(value)));
  });
  const ratio = tokens.all_schemas ? Math.round(100 * tokens.saved / tokens.all_schemas) : 0;
  chart.append(svg("text", { x: 0, y: 2 * (bar + 8) + 10 }, `saved ${fmt(tokens.saved)} tokens (${ratio}%)`));
  return chart;
}

async function loadSessions() {
  const { ok, body } = await api("/api/sessions");
  if (!ok) return;
  $("#sessions-updated").textContent = `${body.sessions.length} connected · updated ${new Date().toLocaleTimeString()}`;
  if (!body.sessions.length) {
    $("#sessions").replaceChildren(el("p", { class: "muted" }, "No client has connected yet."));
    return;
  }
  $("#sessions").replaceChildren(el("div", { class: "sessions" }, body.sessions.map((s) =>
    el("div", { class: "session", "data-key": s.key },
      el("h3", {}, s.key),
      el("div", { class: "muted" }, `${s.visible} of ${s.tools} tools listed · ${s.activated.length} activated` +
        (s.replica ? ` · served last by ${s.replica}` : "")),
      el("div", { class: "chips" }, s.activated.map((n) => el("span", { class: "chip" }, n))),
      savingsChart(s.tokens),
      el("div", { class: "muted" }, "searches, latest first"),
      el("ol", { class: "searches" }, s.searches.slice(0, 8).map((q) =>
        el("li", {}, el("code", {}, q.query), q.activated.length ? ` → ${q.activated.join(", ")}` : " → nothing new")))))));
}

// --- start --------------------------------------------------------------------------------------

async function refreshAll() {
  await loadSettings();
  await loadCatalog();
  await loadSessions();
}

refreshAll();
setInterval(loadSessions, 2000);
setInterval(loadCatalog, 10000);
