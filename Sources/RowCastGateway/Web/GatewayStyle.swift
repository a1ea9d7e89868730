/// The page's style sheet, served as `/assets/gateway.css`: a grouped table view, cells laid
/// out by their reuse identifier (`data-cell`), and the change animations.
enum GatewayStyle {
    /// The style sheet text.
    static let text = #"""
        :root { --bg: #f2f2f7; --card: #fff; --ink: #1c1c1e; --muted: #6e6e73; --line: #d8d8dd; --accent: #0a64d8;
                --insert: #d9f5df; --change: #fff3c4; --move: #dbeaff; font-family: system-ui, -apple-system, "DejaVu Sans", sans-serif; }
        * { box-sizing: border-box; }
        body { margin: 0; background: var(--bg); color: var(--ink); }
        .rc-top { position: sticky; top: 0; z-index: 2; display: flex; align-items: baseline; gap: 1rem; padding: .8rem 1.2rem;
                  background: rgba(255,255,255,.92); border-bottom: 1px solid var(--line); }
        .rc-top h1 { margin: 0; font-size: 1.25rem; }
        .rc-top a { color: var(--accent); text-decoration: none; }
        #status { color: var(--muted); font-size: .9rem; }
        #status[data-state=live]::before { content: "\25CF  "; color: #2fb344; }
        #status[data-state=reconnecting]::before, #status[data-state=unavailable]::before { content: "\25CF  "; color: #d93025; }
        .rc-layout { display: grid; grid-template-columns: minmax(0, 1fr) 20rem; gap: 1.2rem; padding: 1.2rem; max-width: 72rem; margin: 0 auto; }
        @media (max-width: 50rem) { .rc-layout { grid-template-columns: 1fr; } }
        .rc-section { margin-bottom: 1.4rem; transition: opacity .35s; }
        .rc-header { display: flex; align-items: baseline; gap: .6rem; padding: 0 .9rem .35rem; text-transform: uppercase;
                     font-size: .78rem; letter-spacing: .04em; color: var(--muted); }
        .rc-header .rc-title { font-weight: 600; }
        .rc-header .rc-section-id { margin-left: auto; font-family: ui-monospace, monospace; text-transform: none; opacity: .6; }
        .rc-header[data-cell=SponsoredHeaderCell] { color: #8a5a00; }
        .rc-rows { list-style: none; margin: 0; padding: 0; background: var(--card); border-radius: 12px; overflow: hidden;
                   box-shadow: 0 1px 2px rgba(0,0,0,.06); }
        .rc-row { display: flex; align-items: center; gap: .9rem; padding: .7rem .9rem; border-bottom: 1px solid var(--line);
                  cursor: pointer; transition: background-color .6s, transform .35s ease, opacity .35s; }
        .rc-row:last-child { border-bottom: 0; }
        .rc-row:hover { background: #f7f7fa; }
        .rc-thumb { flex: none; width: 64px; height: 64px; border-radius: 10px; display: grid; place-items: center;
                    background: linear-gradient(135deg, #5e8bff, #8b5cf6) center / cover; color: #fff; font-size: 1.6rem; font-weight: 700; }
        .rc-body { flex: 1; min-width: 0; }
        .rc-title { font-weight: 600; }
        .rc-subtitle { color: var(--muted); font-size: .9rem; margin-top: .15rem; }
        .rc-extra { display: grid; grid-template-columns: auto 1fr; gap: .1rem .6rem; margin: .3rem 0 0; font-size: .85rem; }
        .rc-extra dt { color: var(--muted); }
        .rc-extra dd { margin: 0; overflow-wrap: anywhere; }
        .rc-price { font-weight: 600; font-variant-numeric: tabular-nums; }
        .rc-badge { align-self: center; padding: 0 .45rem; border-radius: 999px; background: var(--accent); color: #fff;
                    font-size: .75rem; font-variant-numeric: tabular-nums; }
        .rc-style-destructive .rc-title { color: #c62828; }
        .rc-actions { display: flex; gap: .4rem; }
        .rc-action, .rc-save { border: 1px solid var(--accent); color: var(--accent); background: none; border-radius: 999px;
                     padding: .2rem .7rem; font: inherit; font-size: .8rem; cursor: pointer; }
        .rc-edit { display: flex; gap: .4rem; align-items: center; }
        .rc-edit input { font: inherit; font-size: .85rem; padding: .15rem .4rem; min-width: 12rem; }
        .rc-row[data-cell=ProductImageCell] .rc-thumb { width: 96px; height: 72px; }
        .rc-row[data-cell=AdvertisingCell] { background: #fffaf0; }
        .rc-row[data-cell=AdvertisingCell] .rc-title::after { content: "Ad"; margin-left: .5rem; padding: 0 .35rem; border-radius: 4px;
                     background: #f5c04a; color: #3d2b00; font-size: .7rem; vertical-align: middle; }
        .rc-row[data-cell=AdvertisingCell] .rc-thumb { border-radius: 50%; width: 48px; height: 48px; font-size: 1.1rem; }
        .rc-inserted { animation: rc-insert .5s ease-out; }
        .rc-reconfigured { animation: rc-change 1s ease-out; }
        .rc-moved { animation: rc-move 1s ease-out; }
        .rc-leaving { opacity: 0; transform: translateX(2rem); pointer-events: none; }
        @keyframes rc-insert { from { background: var(--insert); opacity: 0; transform: translateY(-.6rem); } to { opacity: 1; } }
        @keyframes rc-change { from { background: var(--change); } }
        @keyframes rc-move { from { background: var(--move); } }
        .rc-panel { background: var(--card); border-radius: 12px; padding: .8rem 1rem; align-self: start; position: sticky; top: 4.5rem; }
        .rc-panel h2 { margin: 0 0 .5rem; font-size: .9rem; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
        #events { list-style: none; margin: 0; padding: 0; font-family: ui-monospace, monospace; font-size: .78rem; }
        .rc-event { padding: .35rem 0; border-bottom: 1px solid var(--line); overflow-wrap: anywhere; }
        .rc-event[data-source=stream] { color: #1b6e2c; }
        .rc-feeds { max-width: 48rem; margin: 1.2rem auto; padding: 0; list-style: none; background: var(--card); border-radius: 12px; }
        .rc-feeds li { border-bottom: 1px solid var(--line); }
        .rc-feeds a { display: flex; gap: 1rem; padding: .8rem 1rem; color: inherit; text-decoration: none; }
        .rc-feeds .rc-name { font-weight: 600; flex: 1; }
        .rc-feeds .rc-count { color: var(--muted); font-variant-numeric: tabular-nums; }
        .rc-virtual { position: relative; }
        .rc-virtual > .rc-row { position: absolute; left: 0; right: 0; height: 96px; overflow: hidden; }
        .rc-empty, .rc-problem { max-width: 48rem; margin: 1.2rem auto; color: var(--muted); }
        """#
}
