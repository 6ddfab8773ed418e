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
        <p id="query-note" class="note" hidden>This page reads nothing from its address: the query
          <code id="query-names"></code> is ignored. An admin token goes in the form the page shows
          when the server asks for one (kept for this tab only, never in a link, history or logs).</p>
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
          <section id="scenarios-section">
            <h2>Scenarios</h2>
            <div id="scenarios"><p class="empty">no scenarios</p></div>
          </section>
          <section id="gates-section">
            <h2>Gates</h2>
            <div id="gates"><p class="empty">no gates</p></div>
          </section>
          <section id="network-section">
            <h2>Network</h2>
            <form id="network-form" class="gate">
              <span id="network-current">full speed</span>
              <label>Deliver from now on <select id="network-select"><option value="">at full speed</option></select></label>
              <button type="submit">Apply</button>
            </form>
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
        .note { margin: 10px 20px; padding: 8px 12px; border-left: 4px solid var(--head); background: #eef3fb; }
        button { font: inherit; padding: 3px 10px; }
        tr.live { animation: arrive 1.5s ease-out; }
        @keyframes arrive { from { background: #fff3b0; } to { background: transparent; } }

        """#
}
