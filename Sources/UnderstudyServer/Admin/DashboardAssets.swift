/// The dashboard at `GET /__admin/`: one page, its style and its script, shipped in the binary
/// (no CDN, no build step). The page holds no data: the script fetches it from the admin API,
/// with the token the page asks for once (kept in `sessionStorage`, sent as a Bearer header),
/// and follows `GET /__admin/events` by a streaming `fetch` (an `EventSource` cannot send the
/// header). The Content-Security-Policy allows this server only, so nothing is inline.
enum DashboardAssets {
    static let page = #"""
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Understudy</title>
        <link rel="stylesheet" href="/__admin/dashboard.css">
        <link rel="icon" href="/__admin/favicon.svg" type="image/svg+xml">
        <script src="/__admin/dashboard.js" defer></script>
        </head>
        <body data-state="loading">
        <header>
          <h1>Understudy</h1>
          <span id="stream-status">connecting…</span>
          <nav id="links">
            <a id="har-link" href="/__admin/requests.har" download="requests.har">requests.har</a>
            <a id="har-redacted-link" href="/__admin/requests.har?redact=true" download="requests.har">requests.har (secrets redacted)</a>
            <a id="ca-link" href="/__admin/ca.pem" download="ca.pem" hidden>ca.pem</a>
          </nav>
        </header>
        <form id="token-form" hidden>
          <p>This server needs its admin token (<code>--admin-token</code>).</p>
          <label>Admin token <input id="token-input" type="password" autocomplete="off" required></label>
          <button type="submit">Open the dashboard</button>
          <p id="token-error" class="error"></p>
        </form>
        <main id="content" hidden>
          <section id="journal-section">
            <h2>Journal <span id="journal-count" class="count"></span></h2>
            <table id="journal">
              <thead><tr><th>#</th><th>Time</th><th>Request</th><th>Stub</th><th>Result</th><th>ms</th><th>Body</th></tr></thead>
              <tbody></tbody>
            </table>
          </section>
          <section id="unmatched-section">
            <h2>Unmatched requests and their near misses</h2>
            <div id="unmatched"><p class="empty">every request matched a stub</p></div>
          </section>
          <section id="stubs-section">
            <h2>Stubs <span id="stub-count" class="count"></span></h2>
            <table id="stubs">
              <thead><tr><th>Stub</th><th>Matches</th><th>Priority</th><th>Uses</th><th>Times left</th></tr></thead>
              <tbody></tbody>
            </table>
          </section>
          <section id="gates-section">
            <h2>Gates</h2>
            <div id="gates"><p class="empty">no gates</p></div>
          </section>
        </main>
        </body>
        </html>

        """#

    /// The page's icon (without one, the browser's `/favicon.ico` would be journaled as unmatched).
    static let icon = #"""
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#26324d"/><path d="M4 4h8v2H9v6H7V6H4z" fill="#bcd4ff"/></svg>

        """#

    static let style = #"""
        :root { --ink: #1d2330; --muted: #687086; --line: #dde1ea; --ok: #1f8a4c; --redirect: #1b76b5;
                --client: #b7791f; --bad: #c53030; --head: #26324d; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: #f5f6fa; }
        header { display: flex; flex-wrap: wrap; align-items: center; gap: 16px; padding: 10px 20px; background: var(--head); color: #fff; }
        header h1 { margin: 0; font-size: 18px; letter-spacing: 0.5px; }
        header a { color: #bcd4ff; margin-right: 12px; }
        #stream-status { font-size: 12px; padding: 2px 8px; border-radius: 10px; background: #5a6478; }
        body[data-stream="open"] #stream-status { background: var(--ok); }
        main, form { padding: 12px 20px; }
        section { background: #fff; border: 1px solid var(--line); border-radius: 6px; margin-bottom: 16px; padding: 8px 12px; }
        h2 { font-size: 15px; margin: 4px 0 8px; }
        .count { color: var(--muted); font-weight: normal; }
        table { border-collapse: collapse; width: 100%; }
        th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); vertical-align: middle; }
        th { font-size: 12px; color: var(--muted); font-weight: 600; }
        td.url { font-family: ui-monospace, monospace; word-break: break-all; }
        .method { font-weight: 600; margin-right: 6px; }
        .result { display: inline-block; min-width: 40px; padding: 1px 8px; border-radius: 10px; color: #fff; font-weight: 600; background: var(--muted); }
        .result.s2 { background: var(--ok); }
        .result.s3 { background: var(--redirect); }
        .result.s4 { background: var(--client); }
        .result.s5, .result.fault, .result.failed, .result.truncated, .result.cancelled, .result.unmatched { background: var(--bad); }
        img.thumb { max-width: 64px; max-height: 48px; border: 1px solid var(--line); background: repeating-conic-gradient(#eee 0 25%, #fff 0 50%) 0 0 / 10px 10px; }
        .empty { color: var(--muted); font-style: italic; }
        .miss { margin: 8px 0; padding: 6px 8px; border-left: 3px solid var(--bad); background: #fff7f7; }
        .miss ol { margin: 4px 0 0; }
        .gate { display: flex; gap: 12px; align-items: center; padding: 4px 0; }
        .error { color: var(--bad); }
        button { font: inherit; padding: 3px 10px; }
        tr.live { animation: arrive 1.5s ease-out; }
        @keyframes arrive { from { background: #fff3b0; } to { background: transparent; } }

        """#

    static let script = #"""
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
              renderJournal(journal.requests, journal.total);
              // Near misses are the heavy list: fetched again only when the unmatched ones changed.
              const newestUnmatched = journal.requests.filter((entry) => entry.stub === null).map((entry) => entry.id).pop();
              const unmatchedNow = unmatched.total + "/" + newestUnmatched;
              if (unmatchedNow !== unmatchedSeen) {
                renderMisses((await json("/__admin/near-misses")).unmatched);
                unmatchedSeen = unmatchedNow;
              }
              await renderGates();
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

        // The newest 300 entries: the total first, then the page that ends with it.
        async function journalPage() {
          const head = await json("/__admin/requests?limit=0");
          const offset = Math.max(0, head.total - 300);
          return json("/__admin/requests?offset=" + offset);
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
          api("/__admin/requests/" + entry.id + "/body")
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
            const bodyCell = element("td", "body");
            if (isImage(entry)) bodyCell.append(thumbnail(entry));
            row.append(
              element("td", null, entry.id),
              element("td", null, entry.time.slice(11, 23)),
              request,
              element("td", "stub", entry.stub === null ? "—" : entry.stub),
              resultCell,
              element("td", null, Math.round(entry.durationMs)),
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

        """#
}
