/** The stylesheet every page shares, served as /static/app.css. */
export const CSS = `
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#222;background:#fafafa}
header{display:flex;gap:1rem;align-items:center;padding:.5rem 1rem;background:#1f2937;color:#fff;position:relative}
header a{color:#cbd5e1;margin-right:.8rem;text-decoration:none}header a.active{color:#fff;font-weight:600}
.brand{font-size:1.1rem}.search{margin-left:auto;position:relative}.search input{width:22rem;padding:.3rem}
.results{display:none;position:absolute;right:0;background:#fff;color:#222;list-style:none;margin:0;padding:.3rem;width:34rem;box-shadow:0 2px 8px #0004;z-index:5}
.results.open{display:block}.results a{color:#1d4ed8}.hits .results{display:block;position:static;box-shadow:none;width:auto}
.notice{background:#fef3c7;border:1px solid #f59e0b;padding:.4rem .8rem;margin:.5rem 1.5rem}
main{padding:1rem 1.5rem}table{border-collapse:collapse;background:#fff;width:100%}
th,td{border-bottom:1px solid #e5e7eb;padding:.25rem .5rem;text-align:left;vertical-align:top}
th a.sort{color:inherit;text-decoration:none}td.num{text-align:right;white-space:nowrap}
.muted{color:#6b7280}.error{color:#b91c1c}.badge{display:inline-block;padding:0 .4rem;border-radius:.6rem;font-size:12px;background:#e5e7eb;margin-left:.2rem}
.badge.warn{background:#fde68a}tr.marked td:first-child{border-left:3px solid #f59e0b}
.passed,.d-allow{background:#d1fae5}.failed,.d-deny,.d-block,.d-error{background:#fee2e2}.running{background:#dbeafe}
.d-shadow{background:#fef3c7}.d-release{background:#ede9fe}.d-context{background:#e0f2fe}.d-gap{background:#fde68a}.d-restart{background:#e0e7ff}
.basis{max-width:70rem}.guard.quiet{background:none;color:#6b7280;font-size:12px}
.charts{display:flex;gap:2rem;flex-wrap:wrap;margin-top:1rem}.chart text{fill:#222}
.trial{display:grid;grid-template-columns:minmax(0,3fr) minmax(18rem,1fr);gap:1.5rem}
#timeline,#ledger{list-style:none;padding:0}.ev{background:#fff;border-left:4px solid #d1d5db;margin:.35rem 0;padding:.35rem .6rem}
.ev.prompt{border-color:#0284c7}.ev.prompt .title{font-weight:600}.ev.user.feedback{border-color:#7c3aed}
.ev.system{border-color:#e5e7eb;color:#6b7280}.ev.rec{border-color:#0ea5e9}.ev.would{border-color:#d97706;background:#fffbeb}
.ev .text{white-space:pre-wrap;margin:.2rem 0}.call{border:1px solid #e5e7eb;border-radius:.3rem;padding:.25rem .4rem;margin:.3rem 0}
.call.call-deny{border:2px solid #dc2626}.call.call-release{border:2px solid #7c3aed}.call.call-shadow,.call.would-deny{border:2px dashed #d97706}
.guard.gd-deny{background:#fee2e2}.guard.gd-release{background:#ede9fe}.guard.gd-shadow{background:#fef3c7}.guard.gd-error{background:#fee2e2}
#scorecard code{overflow-wrap:normal}.failed-checks{padding-left:1rem}.failed-checks li{margin:.4rem 0}.steps a{margin-right:.4rem}
.arg{margin-left:.5rem;font-size:12px;background:#f3f4f6;padding:0 .3rem;border-radius:.2rem}.arg .k{color:#6b7280}
.guard{margin:.2rem 0;padding:.2rem .4rem;border-radius:.2rem}.guard.would{background:#fffbeb;border:1px dashed #d97706}
.metrics{color:#6b7280;font-size:12px}.step{font-weight:600;font-size:12px}
.time{color:#6b7280;font-family:monospace}.pager{margin:.4rem 0}
.hit{margin:.2rem 0}.hit .msg{white-space:pre-wrap}.checks{color:#4b5563;font-size:12px}
pre{white-space:pre-wrap;word-break:break-word;background:#f3f4f6;padding:.4rem;max-height:24rem;overflow:auto;margin:.2rem 0}
pre.preview{max-height:6rem;font-size:12px}
.rule{display:inline-block;margin:.1rem .3rem .1rem 0;padding:0 .3rem;border:1px solid #d1d5db;border-radius:.3rem}
.rule.fired{background:#fee2e2}.rule.would{border-style:dashed;border-color:#d97706}.fp,.rule.fp{background:#fee2e2;font-weight:600}
tr.gap td:first-child{border-left:3px solid #f59e0b}tr.covered td:first-child{border-left:3px solid #10b981}
form#filters{margin:.5rem 0}form#filters label{margin-right:1rem}.would{color:#92400e}
#matrix td.cell{text-align:center}#matrix .all{background:#d1fae5}#matrix .none{background:#fee2e2}#matrix .some{background:#fef9c3}
#matrix .gained{outline:3px solid #059669;outline-offset:-3px;font-weight:700}#matrix .lost{outline:3px solid #dc2626;outline-offset:-3px;font-weight:700}
.legend .cell{padding:0 .3rem}.cell.gained{outline:2px solid #059669}.cell.lost{outline:2px solid #dc2626}
#matrix tr.group th{background:#f3f4f6}#matrix td.task{font-family:monospace;font-size:12px}
.bar{display:inline-block;width:8rem;height:.6rem;background:#e5e7eb;margin-left:.5rem;vertical-align:middle}.bar span{display:block;height:100%;background:#4c78a8}
#trials td{font-size:13px}#trials td:first-child{max-width:19rem}#trials a.trial-link{white-space:nowrap}#trials td.task{max-width:13rem;font-size:12px;color:#4b5563}
#trials td:nth-child(10),#trials td:nth-child(11){max-width:12rem;font-size:12px}
#trials td.checks{max-width:15rem;min-width:8rem}.failed-ids code{font-size:11px}.ledger-link{display:block;font-size:11px}
#decisions a.active{font-weight:700;text-decoration:none;color:inherit}#checks td{vertical-align:top}#checks td.doom{max-width:16rem;font-size:12px;word-break:break-word}#checks td.timing{white-space:nowrap;font-size:13px}#checks td.checks{min-width:13rem}
#alignment tr.args-differ td.call-cell{background:#fefce8}.badge.args{background:#fde68a;margin-top:.2rem}
.argdiff{list-style:none;margin:.2rem 0 0;padding:0;font-size:12px}.argdiff .k{color:#6b7280;font-family:monospace}
.scroll{overflow-x:auto;max-width:100%}#checks th.arm{max-width:7rem;font-size:12px}
.guard-ok{margin-left:.6rem;font-size:12px;color:#047857}
dl.facts{display:grid;grid-template-columns:auto 1fr;gap:.1rem .6rem}dl.facts dt{color:#6b7280}
.overlays a.active,.overlays a.active{font-weight:700}
#alignment{table-layout:fixed}#alignment th:first-child{width:7.5rem}#alignment td.idx .badge{margin:.2rem 0 0}#alignment td{font-size:13px;word-break:break-word}
#alignment tr.only-a td:nth-child(2),#alignment tr.only-b td:nth-child(3){background:#fffbeb}#alignment td.gap-cell{background:#f9fafb}
#alignment tr.diverge td{border-top:3px solid #f59e0b}#alignment .verdict{margin-top:.15rem;font-size:12px}#divergence.diverges a{font-weight:600}
#alignment tr.local td:not(:first-child){opacity:.6}#alignment td.call-deny{box-shadow:inset 3px 0 #dc2626}#alignment td.call-shadow{box-shadow:inset 3px 0 #d97706}#sides td{width:50%}
`;
