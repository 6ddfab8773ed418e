"use strict";
// The Understudy dashboard: everything is fetched from the admin API, with the admin
// token when the server has one. Text from requests is only ever set as textContent.
const tokenKey = "understudy-admin-token";
let token = sessionStorage.getItem(tokenKey);
let listening = false;
let certificateChecked = false;
let refreshing = false;
let refreshAgain = false;
let renders = 0;
const rows = new Map();        // journal id -> { key, row }
const thumbnails = new Map();  // journal id -> <img>
let unmatchedSeen = null;      // "total/newest id" of the unmatched list last drawn

function $(id) { return document.getElementById(id); }

// A query pasted with the address (`?token=...`, say) is not read: say so on the page.
if (location.search.length > 1) {
  $("query-names").textContent = Array.from(new URLSearchParams(location.search).keys()).map((name) => "?" + name).join(" ");
  $("query-note").hidden = false;
}

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function api(path, options) {
  const init = Object.assign({ cache: "no-store" }, options || {});
  const headers = new Headers(init.headers || {});
  if (token) headers.set("Authorization", "Bearer " + token);
  init.headers = headers;
  return fetch(path, init);
}

async function json(path) {
  const response = await api(path);
  if (response.status === 401) throw new NeedsToken();
  if (!response.ok) throw new Error(path + " answered " + response.status);
  return response.json();
}

class NeedsToken extends Error {}

function askForToken(message) {
  document.body.dataset.state = "needs-token";
  $("content").hidden = true;
  $("token-form").hidden = false;
  $("token-error").textContent = message || "";
  $("token-input").focus();
}

$("token-form").addEventListener("submit", (event) => {
  event.preventDefault();
  token = $("token-input").value.trim();
  sessionStorage.setItem(tokenKey, token);
  start();
});

async function start() {
  const response = await api("/__admin/health");
  if (response.status === 401) {
    askForToken(token ? "That token was refused; try again." : "");
    return;
  }
  $("token-form").hidden = true;
  $("token-error").textContent = "";
  $("content").hidden = false;
  document.body.dataset.state = "live";
  if (!listening) {
    listening = true;
    listen().finally(() => { listening = false; });
  }
  if (!certificateChecked) {
    certificateChecked = true;
    showCertificateLink();
  }
  refresh();
}

// Server-sent events through a streaming fetch, so that the token goes in a header.
async function listen() {
  for (;;) {
    try {
      const response = await api("/__admin/events");
      if (response.status === 401) { askForToken("The token was refused."); return; }
      if (!response.ok || !response.body) throw new Error("events answered " + response.status);
      document.body.dataset.stream = "open";
      $("stream-status").textContent = "live";
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          buffer = buffer.slice(end + 2);
          refresh();
        }
      }
    } catch (error) {
      console.log("event stream: " + error);
    }
    document.body.dataset.stream = "closed";
    $("stream-status").textContent = "reconnecting…";
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

async function refresh() {
  if (refreshing) { refreshAgain = true; return; }
  refreshing = true;
  try {
    do {
      refreshAgain = false;
      const [stubs, journal, unmatched] = await Promise.all([
        json("/__admin/stubs"), journalPage(), json("/__admin/requests?unmatched=true&limit=0"),
      ]);
      renderStubs(stubs.stubs);
      renderJournal(journal.requests, journal.meta.total);
      // Near misses are the heavy list: fetched again only when the unmatched ones changed.
      const newestUnmatched = journal.requests.filter((entry) => entry.stub === null).map((entry) => entry.id).pop();
      const unmatchedNow = unmatched.meta.total + "/" + newestUnmatched;
      if (unmatchedNow !== unmatchedSeen) {
        renderMisses((await json("/__admin/near-misses")).unmatched);
        unmatchedSeen = unmatchedNow;
      }
      await renderGates();
      await renderScenarios();
      await renderNetwork();
      renders += 1;
      document.body.dataset.renders = String(renders);
    } while (refreshAgain);
  } catch (error) {
    if (error instanceof NeedsToken) askForToken("The token was refused.");
    else console.log("refresh: " + error);
  } finally {
    refreshing = false;
  }
}

// The newest 300 entries, oldest first: the total, then the page that ends with it
// (GET /__admin/requests answers in WireMock's shape, newest first, each entry's
// Understudy form under `request.understudy`).
async function journalPage() {
  const head = await json("/__admin/requests?limit=0");
  const offset = Math.max(0, head.meta.total - 300);
  const page = await json("/__admin/requests?offset=" + offset);
  page.requests = page.requests.reverse().map((event) => event.request.understudy);
  return page;
}

function renderStubs(stubs) {
  const body = $("stubs").tBodies[0];
  body.replaceChildren();
  $("stub-count").textContent = "(" + stubs.length + ")";
  for (const stub of stubs) {
    const row = element("tr", "stub");
    row.dataset.name = stub.name;
    row.append(
      element("td", "name", stub.name),
      element("td", "matcher", stub.matcher),
      element("td", null, stub.priority),
      element("td", "uses", stub.uses),
      element("td", "left", stub.times === null || stub.times === undefined ? "unlimited" : Math.max(0, stub.times - stub.uses)),
    );
    body.append(row);
  }
  if (stubs.length === 0) {
    const row = element("tr");
    row.append(element("td", "empty", "no stubs"));
    body.append(row);
  }
}

function resultOf(entry) {
  const status = entry.response ? entry.response.status : null;
  switch (entry.outcome) {
    case "fault": return { text: "fault " + (entry.fault || ""), kind: "fault" };
    case "failed": return { text: (status ? status + " " : "") + "failed", kind: "failed" };
    case "truncated": return { text: (status ? status + " " : "") + "truncated", kind: "truncated" };
    case "cancelled": return { text: (status ? status + " " : "") + "cancelled", kind: "cancelled" };
    case "unmatched": return { text: (status ? status + " " : "") + "unmatched", kind: "unmatched" };
    case "in-flight": return { text: "in flight", kind: "in-flight" };
    default: return { text: String(status), kind: status ? "s" + String(status).charAt(0) : "" };
  }
}

function isImage(entry) {
  const type = entry.response && (entry.response.headers["Content-Type"] || "");
  return Boolean(type && type.toLowerCase().startsWith("image/") && entry.response.bodySize > 0
    && (entry.outcome === "completed" || entry.outcome === "truncated"));
}

// The image a response sent, fetched with the token and shown from a blob. Bodies that
// are not kept (images rendered per request, unless the journal keeps bodies) say so.
function thumbnail(entry) {
  let holder = thumbnails.get(entry.id);
  if (holder) return holder;
  holder = element("span", "thumb-holder");
  const image = element("img", "thumb");
  image.alt = "response body of request " + entry.id;
  image.dataset.naturalWidth = "pending";
  image.addEventListener("load", () => { image.dataset.naturalWidth = String(image.naturalWidth); });
  image.addEventListener("error", () => { image.dataset.naturalWidth = "0"; });
  holder.append(image);
  thumbnails.set(entry.id, holder);
  api("/__admin/requests/" + entry.id + "/body?as=thumbnail")
    .then((response) => {
      if (response.status === 404) throw new Error("body not kept");
      if (!response.ok) throw new Error("body answered " + response.status);
      return response.blob();
    })
    .then((blob) => { image.src = URL.createObjectURL(blob); })
    .catch((error) => {
      image.dataset.naturalWidth = "0";
      image.hidden = true;
      holder.append(element("span", "empty", error.message));
    });
  return holder;
}

function renderJournal(entries, total) {
  const body = $("journal").tBodies[0];
  $("journal-count").textContent = "(" + total + ")";
  const kept = new Set();
  for (const entry of entries) {
    kept.add(entry.id);
    const key = JSON.stringify([entry.outcome, entry.response, entry.durationMs, entry.stub]);
    const known = rows.get(entry.id);
    if (known && known.key === key) continue;
    const result = resultOf(entry);
    const row = element("tr", "entry" + (renders > 0 && !known ? " live" : ""));
    row.dataset.id = String(entry.id);
    row.dataset.outcome = entry.outcome;
    row.dataset.status = entry.response ? String(entry.response.status) : "";
    row.dataset.url = entry.request.url;
    const request = element("td", "url");
    request.append(element("span", "method", entry.request.method), document.createTextNode(entry.request.url));
    const badge = element("span", "result " + result.kind, result.text);
    const resultCell = element("td");
    resultCell.append(badge);
    if (entry.error) resultCell.append(element("div", "error", entry.error));
    // What the stub left to chance and this request drew: "drew fault, delay".
    if (entry.drawn) resultCell.append(element("div", "drawn", "drew " + entry.drawn.join(", ")));
    const bodyCell = element("td", "body");
    if (isImage(entry)) bodyCell.append(thumbnail(entry));
    row.append(
      element("td", null, entry.id),
      element("td", null, entry.time.slice(11, 23)),
      request,
      element("td", "stub", entry.stub === null ? "—" : entry.stub + (entry.scenario ? " (" + entry.scenario.name + ": " + entry.scenario.state + ")" : "")),
      resultCell,
      element("td", null, Math.round(entry.durationMs)),
      connectionCell(entry),
      bodyCell,
    );
    if (known) known.row.replaceWith(row);
    rows.set(entry.id, { key, row });
  }
  for (const [id, known] of rows) {
    if (!kept.has(id)) { known.row.remove(); rows.delete(id); thumbnails.delete(id); }
  }
  // Newest first: put the rows in order of id, descending (moving a row keeps its image).
  const ordered = Array.from(rows.keys()).sort((a, b) => b - a);
  ordered.forEach((id, index) => {
    const row = rows.get(id).row;
    if (body.children[index] !== row) body.insertBefore(row, body.children[index] || null);
  });
}

// "3·2": the request was the second on connection 3; with TLS, its ALPN and version beneath.
function connectionCell(entry) {
  const cell = element("td", "connection");
  if (entry.connection === undefined) { cell.textContent = "—"; return cell; }
  cell.dataset.connection = String(entry.connection);
  cell.dataset.exchange = String(entry.exchange);
  cell.append(document.createTextNode(entry.connection + "·" + entry.exchange));
  if (entry.tls) {
    const facts = [entry.tls.applicationProtocol, entry.tls.protocolVersion, entry.tls.serverName].filter((fact) => fact);
    cell.append(element("div", "tls", facts.join(" ")));
  }
  return cell;
}

function renderMisses(unmatched) {
  const list = $("unmatched");
  list.replaceChildren();
  if (unmatched.length === 0) {
    list.append(element("p", "empty", "every request matched a stub"));
    return;
  }
  for (const item of unmatched.slice().reverse().slice(0, 50)) {
    const box = element("div", "miss");
    box.dataset.id = String(item.entry.id);
    box.append(element("div", "url", "#" + item.entry.id + " " + item.entry.request.method + " " + item.entry.request.url));
    if (item.nearMisses.length === 0) {
      box.append(element("div", "empty", "no stub came close"));
    } else {
      const misses = element("ol");
      for (const miss of item.nearMisses) misses.append(element("li", "near-miss", miss.description));
      box.append(misses);
    }
    list.append(box);
  }
}

// Each scenario's state now, with the states its stubs know.
async function renderScenarios() {
  const list = $("scenarios");
  const scenarios = (await json("/__admin/scenarios")).scenarios || [];
  list.replaceChildren();
  if (scenarios.length === 0) {
    list.append(element("p", "empty", "no scenarios"));
    return;
  }
  for (const scenario of scenarios) {
    const line = element("div", "scenario");
    line.dataset.name = scenario.name;
    line.dataset.state = scenario.state;
    line.append(
      element("strong", null, scenario.name),
      element("span", "state", scenario.state),
      element("span", "empty", "(" + scenario.possibleStates.join(", ") + ")"),
    );
    list.append(line);
  }
}

async function renderGates() {
  const list = $("gates");
  const response = await api("/__admin/gates");
  if (response.status === 401) throw new NeedsToken();
  const gates = response.ok ? (await response.json()).gates || [] : [];
  list.replaceChildren();
  if (gates.length === 0) {
    list.append(element("p", "empty", "no gates"));
    return;
  }
  for (const gate of gates) {
    const line = element("div", "gate");
    line.dataset.name = gate.name;
    line.append(
      element("strong", null, gate.name),
      element("span", null, gate.open ? "open" : "closed"),
      element("span", null, gate.waiting + " waiting"),
    );
    const release = element("button", null, "Release");
    release.addEventListener("click", async () => {
      release.disabled = true;
      await api("/__admin/gates/" + encodeURIComponent(gate.name) + "/release", { method: "POST" });
      refresh();
    });
    line.append(release);
    list.append(line);
  }
}

// The profile in force (the server's --network, or one set at run time over it) and
// a choice of every named profile; "at full speed" removes the run-time one.
function describeProfile(profile) {
  return (profile.name || "custom") + " (" + profile.latencyMs + " ms, " + profile.rate + ")";
}

async function renderNetwork() {
  const response = await api("/__admin/network");
  if (response.status === 401) throw new NeedsToken();
  if (!response.ok) return;
  const state = await response.json();
  const select = $("network-select");
  if (select.options.length === 1) {
    for (const name of state.profiles) select.append(new Option(name, name));
  }
  let text = "full speed";
  if (state.current) {
    text = describeProfile(state.current) + (state.runtime ? ", set at run time" : ", the server's --network");
  }
  $("network-current").textContent = text;
  document.body.dataset.network = state.current ? (state.current.name || "custom") : "";
  if (document.activeElement !== select) {
    select.value = state.runtime && state.runtime.name ? state.runtime.name : "";
  }
}

$("network-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const name = $("network-select").value;
  const response = name
    ? await api("/__admin/network", { method: "PUT", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ profile: name }) })
    : await api("/__admin/network", { method: "DELETE" });
  if (response.status === 401) return askForToken("The token was refused.");
  $("network-select").blur();
  refresh();
});

async function showCertificateLink() {
  const response = await api("/__admin/ca.pem", { method: "HEAD" });
  $("ca-link").hidden = !response.ok;
}

// With a token, a plain link cannot send it: fetch the file and save it from a blob.
for (const id of ["har-link", "har-redacted-link", "ca-link"]) {
  $(id).addEventListener("click", async (event) => {
    if (!token) return;
    event.preventDefault();
    const link = event.currentTarget;
    const response = await api(link.getAttribute("href"));
    if (!response.ok) return;
    const save = element("a");
    save.href = URL.createObjectURL(await response.blob());
    save.download = link.getAttribute("download");
    save.click();
    setTimeout(() => URL.revokeObjectURL(save.href), 10000);
  });
}

start();
