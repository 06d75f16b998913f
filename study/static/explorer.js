// The transit explorer: the simulator's closed-form (alpha-beta) model in the browser.
//
// A port of cit/sim/closed.py and of the formatting in cit/fmt.py and cit/sim/report.py.
// Every expression repeats the Python one in the same order, so at the recorded settings
// the two give the same floating-point results and the same strings; a browser test
// (tests/browser/test_explorer.py) checks that against every cell of
// data/sim/results.md that the closed form covers. No build step: a classic script
// (Chromium refuses module scripts from file://), loaded by src so that the site's
// Content-Security-Policy allows it; it puts its functions on window.citExplorer.
//
// The page embeds the model's inputs as JSON in <script id="explorer-data">, written by
// study/blocks/explorer.py; nothing here holds a number of the study.

"use strict";
(() => {

  /**
   * The model's parameters (cit/sim/closed.py's Params; SI units).
   * @typedef {{workers: number, dcs: number, alpha_intra: number, alpha_wan: number,
   *   bw_nic: number, bw_wan: number, dense_bytes: number, topk_bytes: number,
   *   band_bytes: number, dct2d_macs: number, band_macs: number, fft_macs: number,
   *   flops_per_param_token: number, n_params: number, tokens: number, gpu_rate: number,
   *   gpu_flops_per_mac: number, gpu_power: number, j_per_bit_intra: number,
   *   j_per_bit_wan: number, module_budget: number, module_ops_per_mac: number,
   *   module_port_rate: number, module_power: number, module_uses_fft: boolean,
   *   transform_counts: boolean, layout: string}} Params
   * The explorer's knobs.
   * @typedef {{wan_gbps: number, wan_latency_us: number, module_budget_gflops: number,
   *   utilisation: number, transform_counts: boolean, layout: string}} Controls
   * @typedef {{key: string, label: string, mech: string, collective: string,
   *   steps_from: string, hypothetical: boolean, colour: string, dash: string}} VariantInfo
   * @typedef {{id: string, label: string, a: string, b: string}} BreakEvenInfo
   * @typedef {{slug: string, enob: number, planes: number, fs_every: number,
   *   steps: number|null}} EnobRun
   * @typedef {{key: string, what: string, text: string, value: number|null,
   *   decimals: number|null, kind: string|null}} Quoted
   * @typedef {{uid: string, title: string, desc: string, x: PlotAxis, y: PlotAxis,
   *   width: number, height: number, set_label: string}} FigureSpec
   * The page's embedded data (study/blocks/explorer.py, explorer_data).
   * @typedef {{base: Params, controls: Controls, gpu_peak_tflops: number,
   *   variants: VariantInfo[], steps: Record<string, number|null>,
   *   breakevens: BreakEvenInfo[], grid: number[], lo: number, hi: number,
   *   iterations: number, enob: EnobRun[], e_planes: number, other_layout: string,
   *   other_a_label: string, against: Quoted[], figure: FigureSpec}} ExplorerData
   * @typedef {{kind: string, at: number|null}} BreakEven
   * @typedef {{compute: number, gpu: number, module: number, comm: number, gpu_j: number,
   *   link_j: number, module_j: number, wan_bytes: number, wire: number, total: number,
   *   energy: number}} Step
   * @typedef {{key: string, label: string, step: Step, steps: number|null,
   *   time: number|null, energy: number|null}} VariantResult
   * @typedef {{id: string, label: string, a: string, b: string, be: BreakEven}} BreakEvenResult
   * @typedef {(bw: number) => number|null} TimeFn
   */

  // ---- formatting (cit/fmt.py) ------------------------------------------------------------

  /** @param {number|null|undefined} x @returns {x is null|undefined} */
  function missing(x) {
    return x === null || x === undefined || Number.isNaN(x);
  }

  // The exact decimal expansion of |x| (every double below 1e21 has a finite one, and
  // toFixed computes it exactly): [integer digits, fraction digits].
  /** @param {number} x @returns {[string, string]} */
  function exactDigits(x) {
    const s = Math.abs(x).toFixed(100);
    const dot = s.indexOf(".");
    return [s.slice(0, dot), s.slice(dot + 1)];
  }

  /** @param {string} digits */
  function incremented(digits) {
    const out = digits.split("");
    let i = out.length - 1;
    while (i >= 0) {
      if (out[i] === "9") {
        out[i] = "0";
        i -= 1;
      } else {
        out[i] = String(Number(out[i]) + 1);
        return out.join("");
      }
    }
    return "1" + out.join("");
  }

  // |x| rounded to d decimals (d may be negative) as Python rounds: to the nearest, ties to
  // even, on the exact binary value. Returns [integer digits, fraction digits (d of them)].
  /** @param {number} x @param {number} d @returns {[string, string]} */
  function roundedDigits(x, d) {
    if (Math.abs(x) >= 1e21) throw new Error("number too large to format: " + x);
    const [i, f] = exactDigits(x);
    let all = i + f;
    let point = i.length;
    let cut = point + d;
    if (cut < 1) {
      all = "0".repeat(1 - cut) + all;
      point += 1 - cut;
      cut = 1;
    }
    let keep = all.slice(0, cut);
    const rest = all.slice(cut);
    let up = false;
    if (rest.length > 0) {
      if (rest[0] > "5") up = true;
      else if (rest[0] === "5") {
        up = /[1-9]/.test(rest.slice(1)) || Number(keep[keep.length - 1]) % 2 === 1;
      }
    }
    if (up) {
      const bumped = incremented(keep);
      if (bumped.length > keep.length) point += 1;
      keep = bumped;
    }
    let intPart;
    let frac;
    if (d >= 0) {
      intPart = keep.slice(0, keep.length - d);
      frac = keep.slice(keep.length - d);
    } else {
      intPart = keep + "0".repeat(-d);
      frac = "";
    }
    intPart = intPart.replace(/^0+(?=\d)/, "");
    if (intPart === "") intPart = "0";
    return [intPart, frac];
  }

  /** @param {string} intPart */
  function grouped(intPart) {
    return intPart.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  }

  // fmt(x, d): thousands separators and exactly d decimals; "n/a" when missing.
  /** @param {number|null|undefined} x @param {number} d */
  function fmt(x, d) {
    if (missing(x)) return "n/a";
    const neg = x < 0 || Object.is(x, -0);
    const [intPart, frac] = roundedDigits(x, d);
    return (neg ? "-" : "") + grouped(intPart) + (d > 0 ? "." + frac : "");
  }

  /** @param {number} x */
  function fmtInt(x) {
    return fmt(x, 0);
  }

  // Python's round(x, n) for a float: the double nearest the decimal rounding of x.
  /** @param {number} x @param {number} n */
  function pyRound(x, n) {
    const [intPart, frac] = roundedDigits(x, n);
    const v = Number(intPart + (frac ? "." + frac : ""));
    return x < 0 ? -v : v;
  }

  // fmt_sig(x, sig): x to sig significant figures, thousands separators, no exponent.
  /** @param {number|null|undefined} x @param {number} [sig] */
  function fmtSig(x, sig = 3) {
    if (missing(x)) return "n/a";
    if (x === 0) return fmt(0, sig - 1);
    let digits = sig - 1 - Math.floor(Math.log10(Math.abs(x)));
    const r = pyRound(x, digits);
    if (r !== 0) digits = sig - 1 - Math.floor(Math.log10(Math.abs(r)));
    return fmt(r, Math.max(digits, 0));
  }

  // fmt_general(x): Python's format(x, "g"): six significant digits, trailing zeros cut,
  // scientific form when the exponent is below -4 or from 6 up.
  /** @param {number|null|undefined} x */
  function fmtGeneral(x) {
    if (missing(x)) return "nan";
    if (x === 0) return Object.is(x, -0) ? "-0" : "0";
    let exp = Math.floor(Math.log10(Math.abs(x)));
    if (Math.abs(pyRound(x, 5 - exp)) >= 10 ** (exp + 1)) exp += 1; // carried a decade
    const neg = x < 0 ? "-" : "";
    if (exp >= -4 && exp < 6) {
      const [i, f] = roundedDigits(x, 5 - exp);
      const s = f ? i + "." + f : i;
      return neg + (s.includes(".") ? s.replace(/0+$/, "").replace(/\.$/, "") : s);
    }
    const [i, f] = roundedDigits(x, 5 - exp);
    const digits = (i + f).replace(/^0+/, "").slice(0, 6);
    const mant = (digits[0] + "." + digits.slice(1)).replace(/0+$/, "").replace(/\.$/, "");
    return neg + mant + "e" + (exp < 0 ? "-" : "+") + String(Math.abs(exp)).padStart(2, "0");
  }

  // cit/sim/report.py's cell formats
  /** @param {number} s */
  const fMs = (s) => fmt(s * 1e3, 3);
  /** @param {number|null} s */
  const fS = (s) => (s === null ? "never" : fmt(s, 2));
  /** @param {number|null} j */
  const fKj = (j) => (j === null ? "never" : fmt(j / 1e3, 2));
  /** @param {number} j */
  const fJ = (j) => fmt(j, 3);
  /** @param {number|null} x */
  const fSteps = (x) => (x === null ? "never" : fmt(x, 0));
  /** @param {number} bw */
  const fGbps = (bw) => fmtSig(bw / 1e9, 3);
  /** @param {number|null} x @param {number} [d] */
  const fmtPct = (x, d = 2) => (missing(x) ? "n/a" : fmt(x * 100, d) + "%");

  // cit/sim/quoted.py's be_text
  /** @param {string} kind @param {string|null} shown */
  function beText(kind, shown) {
    if (kind === "whole") return "whole range";
    if (kind === "none") return "none in range";
    return kind + " " + shown + " GB/s";
  }

  /** @param {BreakEven} be */
  function fBreakEven(be) {
    return beText(be.kind, be.at === null ? null : fGbps(be.at));
  }

  // ---- the closed-form model (cit/sim/closed.py) -------------------------------------------

  // Params from the embedded base (SI units) and the explorer's knobs, built with the same
  // operations in the same order as cit/sim/compute.py's build_params.
  /** @param {ExplorerData} data @param {Partial<Controls>} [controls] @returns {Params} */
  function paramsFrom(data, controls) {
    const c = Object.assign({}, data.controls, controls || {});
    return Object.assign({}, data.base, {
      bw_wan: c.wan_gbps * 1e9,
      alpha_wan: c.wan_latency_us * 1e-6,
      gpu_rate: data.gpu_peak_tflops * 1e12 * c.utilisation,
      module_budget: c.module_budget_gflops * 1e9,
      transform_counts: c.transform_counts,
      layout: c.layout,
    });
  }

  /** @param {Params} p @param {number} bw @returns {Params} */
  function withBw(p, bw) {
    return Object.assign({}, p, { bw_wan: bw });
  }

  /** @param {Params} p */
  function moduleRate(p) {
    if (!p.transform_counts) return p.module_port_rate;
    const cost = p.module_uses_fft ? p.fft_macs : p.band_macs;
    return Math.min(p.module_port_rate, p.module_budget / (cost * p.module_ops_per_mac));
  }

  /** @param {Params} p */
  const perDc = (p) => Math.trunc(p.workers / p.dcs);
  /** @param {Params} p */
  const intraAlpha = (p) => 2 * p.alpha_intra;
  /** @param {Params} p */
  const wanAlpha = (p) => 2 * p.alpha_intra + p.alpha_wan;

  /** @param {Params} p @returns {[number, number]} */
  function ringPath(p) {
    if (p.dcs > 1) return [wanAlpha(p), Math.min(p.bw_nic, p.bw_wan)];
    return [intraAlpha(p), p.bw_nic];
  }

  /** @param {Params} p @param {number} size */
  function ringAllreduce(p, size) {
    const [alpha, bw] = ringPath(p);
    return 2 * (p.workers - 1) * (alpha + size / p.workers / bw);
  }

  /** @param {Params} p @param {number} payload */
  function ringAllgather(p, payload) {
    const [alpha, bw] = ringPath(p);
    return (p.workers - 1) * (alpha + payload / bw);
  }

  /** @param {Params} p @param {number} size */
  function hierAllreduce(p, size) {
    const k = perDc(p);
    let t = 2 * (k - 1) * (intraAlpha(p) + size / (k * p.bw_nic));
    if (p.dcs > 1) t += wanAlpha(p) + Math.max(size / p.bw_wan, size / (k * p.bw_nic));
    return t;
  }

  /** @param {Params} p @param {number} payload */
  function hierAllgather(p, payload) {
    const k = perDc(p);
    let t = (k - 1) * (intraAlpha(p) + p.dcs * payload / p.bw_nic);
    if (p.dcs > 1) t = wanAlpha(p) + Math.max(k * payload / p.bw_wan, payload / p.bw_nic) + t;
    return t;
  }

  /** @param {Params} p @param {number} dense @param {number} band */
  function innetSum(p, dense, band) {
    const k = perDc(p);
    let t = (k - 1) * (intraAlpha(p) + dense / (k * p.bw_nic));
    if (p.dcs > 1) t += wanAlpha(p) + band / p.bw_wan;
    return t + (k - 1) * intraAlpha(p);
  }

  /** @param {Params} p @param {string} mech */
  function gpuMacs(p, mech) {
    if (mech === "A") return 0.0;
    if (mech === "B") return 2 * p.dct2d_macs;
    if (mech === "C" || mech === "Cprime") return 2 * p.band_macs;
    return p.band_macs;
  }

  /** @param {Params} p @param {string} mech */
  function modules(p, mech) {
    if (mech === "E") return p.workers;
    if (mech === "Eprime") return p.dcs;
    return 0;
  }

  // [communication time, bytes on worker links counted per link, WAN bytes both ways,
  // bytes one worker sends on its own link]
  /** @param {Params} p @param {string} mech @returns {[number, number, number, number]} */
  function traffic(p, mech) {
    const n = p.workers;
    const k = perDc(p);
    const cross = p.dcs > 1;
    if (mech === "Eprime") {
      const shard = p.dense_bytes / k;
      const wan = cross ? 2 * p.band_bytes : 0.0;
      return [innetSum(p, p.dense_bytes, p.band_bytes), n * (k - 1) * shard * 2, wan,
        (k - 1) * shard];
    }
    const reduce = mech === "A" || mech === "Cprime";
    const size = mech === "A" ? p.dense_bytes : (mech === "B" ? p.topk_bytes : p.band_bytes);
    if (p.layout === "flat-ring") {
      const steps = reduce ? 2 * (n - 1) : n - 1;
      const chunk = reduce ? size / n : size;
      const comm = reduce ? ringAllreduce(p, size) : ringAllgather(p, size);
      const wan = cross ? steps * chunk * 2 : 0.0;
      return [comm, n * steps * chunk * 2, wan, steps * chunk];
    }
    let ringBytes;
    let xUp;
    let xWan;
    let comm;
    if (reduce) {
      ringBytes = 2 * (k - 1) * size / k;
      xUp = size / k;
      xWan = size;
      comm = hierAllreduce(p, size);
    } else {
      ringBytes = (k - 1) * p.dcs * size;
      xUp = size;
      xWan = k * size;
      comm = hierAllgather(p, size);
    }
    if (!cross) {
      xUp = 0.0;
      xWan = 0.0;
    }
    return [comm, n * (ringBytes + xUp) * 2, 2 * xWan, ringBytes + xUp];
  }

  // One training step of one mechanism: times (s), energies (J), bytes.
  /** @param {Params} p @param {string} mech @returns {Step} */
  function step(p, mech) {
    const n = p.workers;
    const compute = p.flops_per_param_token * p.n_params * p.tokens / p.gpu_rate;
    const gpu = p.gpu_flops_per_mac * gpuMacs(p, mech) * p.n_params / p.gpu_rate;
    const module = (mech === "E" || mech === "Eprime") ? p.n_params / moduleRate(p) : 0.0;
    const [comm, linkBytes, wanBytes, wire] = traffic(p, mech);
    const linkJ = linkBytes * 8 * p.j_per_bit_intra + wanBytes * 8 * p.j_per_bit_wan;
    const gpuJ = n * p.gpu_power * (compute + gpu);
    const moduleJ = modules(p, mech) * p.module_power * module;
    return {
      compute, gpu, module, comm, gpu_j: gpuJ, link_j: linkJ, module_j: moduleJ,
      wan_bytes: wanBytes, wire,
      total: compute + gpu + module + comm,
      energy: gpuJ + linkJ + moduleJ,
    };
  }

  // Bisection in log-bandwidth (geometric midpoints) on timeA(bw) < timeB(bw).
  /** @param {TimeFn} timeA @param {TimeFn} timeB @param {number} lo @param {number} hi @param {number} iterations @returns {BreakEven} */
  function breakEven(timeA, timeB, lo, hi, iterations) {
    const wins = (/** @type {number} */ bw) => {
      const ta = timeA(bw);
      const tb = timeB(bw);
      if (ta === null) return false;
      if (tb === null) return true;
      return ta < tb;
    };
    const wLo = wins(lo);
    const wHi = wins(hi);
    if (wLo && wHi) return { kind: "whole", at: null };
    if (!wLo && !wHi) return { kind: "none", at: null };
    let a = lo;
    let b = hi;
    for (let i = 0; i < iterations; i += 1) {
      const mid = Math.sqrt(a * b);
      if (wins(mid) === wLo) a = mid;
      else b = mid;
    }
    return { kind: wLo ? "below" : "above", at: Math.sqrt(a * b) };
  }

  /** @param {ExplorerData} data @param {string} key @returns {VariantInfo} */
  function variant(data, key) {
    return one(data.variants.find((v) => v.key === key), "variant " + key);
  }

  // What a find() must have found (the data names only what it holds).
  /** @template T @param {T|undefined} x @param {string} what @returns {T} */
  function one(x, what) {
    if (x === undefined) throw new Error("explorer data: no " + what);
    return x;
  }

  /** @param {ExplorerData} data @param {Params} p @param {Record<string, number|null>} steps @param {string} key @returns {TimeFn} */
  function timeFn(data, p, steps, key) {
    const mech = variant(data, key).mech;
    const s = steps[key];
    return (bw) => (s === null ? null : s * step(withBw(p, bw), mech).total);
  }

  /** @param {ExplorerData} data @param {Params} p @param {Record<string, number|null>} steps @param {string} a @param {string} b */
  function breakEvenPair(data, p, steps, a, b) {
    return breakEven(timeFn(data, p, steps, a), timeFn(data, p, steps, b),
      data.lo, data.hi, data.iterations);
  }

  // Everything the explorer shows, at the given settings.
  /** @param {ExplorerData} data @param {Partial<Controls>} [controls] */
  function evaluate(data, controls) {
    const p = paramsFrom(data, controls);
    const steps = data.steps;
    /** @type {Record<string, Step>} */
    const byMech = {};
    for (const v of data.variants) {
      if (!(v.mech in byMech)) byMech[v.mech] = step(p, v.mech);
    }
    const variants = data.variants.map((v) => {
      const st = byMech[v.mech];
      const s = steps[v.key];
      return {
        key: v.key, label: v.label, step: st, steps: s,
        time: s === null ? null : s * st.total,
        energy: s === null ? null : s * st.energy,
      };
    });
    const breakevens = data.breakevens.map((b) => ({
      id: b.id, label: b.label, a: b.a, b: b.b,
      be: breakEvenPair(data, p, steps, b.a, b.b),
    }));
    const enob = data.enob.map((run) => {
      const s = Object.assign({}, steps, { E: run.steps, Eprime_Esteps: run.steps });
      return {
        run,
        eVsA: breakEvenPair(data, p, s, "E", "A"),
        eprimeVsA: breakEvenPair(data, p, s, "Eprime_Esteps", "A"),
      };
    });
    let enobBreakEven = null;
    const candidates = enob.filter((r) => r.run.planes === data.e_planes)
      .sort((x, y) => x.run.enob - y.run.enob);
    for (const r of candidates) {
      if (r.run.steps === null) continue;
      if (r.eVsA.kind !== "none") { enobBreakEven = { run: r.run, via: "E" }; break; }
      if (r.eprimeVsA.kind !== "none") { enobBreakEven = { run: r.run, via: "E′" }; break; }
    }
    const against = data.against.map((q) => againstRow(q, variants, breakevens));
    return { p, byMech, variants, breakevens, enob, enobBreakEven, against };
  }

  // cit/sim/report.py's against_rows: one quoted figure beside ours.
  /** @param {Quoted} q @param {VariantResult[]} variants @param {BreakEvenResult[]} breakevens */
  function againstRow(q, variants, breakevens) {
    const dot = q.key.indexOf(".");
    const group = q.key.slice(0, dot);
    const rest = q.key.slice(dot + 1);
    let kind;
    let ours;
    let text;
    let shown;
    if (group === "time") {
      kind = "time";
      ours = one(variants.find((v) => v.key === rest), "variant " + rest).time;
      text = fS(ours);
      shown = ours === null ? "never" : fmt(ours, q.decimals === null ? 0 : q.decimals);
    } else {
      const be = one(breakevens.find((b) => b.id === rest), "break-even " + rest).be;
      kind = be.kind;
      ours = be.at === null ? null : be.at / 1e9;
      text = fBreakEven(be);
      shown = beText(kind, ours === null ? null : fmt(ours, q.decimals === null ? 0 : q.decimals));
    }
    const rel = (ours === null || q.value === null || kind !== (q.kind === null ? "time" : q.kind))
      ? null : ours / q.value - 1;
    return { q, text, shown, rel, same: shown === q.text };
  }

  /** @param {ExplorerData} data @param {{variants: VariantResult[]}} res @param {string} a @param {string} b */
  function faster(data, res, a, b) {
    const va = one(res.variants.find((v) => v.key === a), "variant " + a);
    const vb = one(res.variants.find((v) => v.key === b), "variant " + b);
    const ta = va.time;
    const tb = vb.time;
    if (ta === null && tb === null) return "neither";
    if (tb === null || (ta !== null && ta < tb)) return variant(data, a).label;
    if (ta === null || tb < ta) return variant(data, b).label;
    return "neither";
  }

  // The cells of data/sim/results.md §3-§6 as the closed form gives them, keyed
  // "section|table|row|column" (the browser test compares them with the recorded file).
  /** @param {ExplorerData} data @param {Partial<Controls>} [controls] */
  function computeCells(data, controls) {
    const res = evaluate(data, controls);
    /** @type {Record<string, string>} */
    const out = {};
    /** @param {number} sec @param {string} table @param {string} row @param {string} col @param {string} text */
    const put = (sec, table, row, col, text) => {
      out[sec + "|" + table + "|" + row + "|" + col] = text;
    };
    let t = "Step time and time to target";
    for (const v of res.variants) {
      const st = v.step;
      put(3, t, v.label, "Variant", v.label);
      put(3, t, v.label, "Compute (ms)", fMs(st.compute));
      put(3, t, v.label, "Compression, GPU (ms)", fMs(st.gpu));
      put(3, t, v.label, "Compression, module (ms)", fMs(st.module));
      put(3, t, v.label, "Communication (ms)", fMs(st.comm));
      put(3, t, v.label, "Step time (ms)", fMs(st.total));
      put(3, t, v.label, "Time to target (s)", fS(v.time));
      put(3, t, v.label, "Energy to target (kJ)", fKj(v.energy));
    }
    t = "Energy per step";
    for (const v of res.variants) {
      const st = v.step;
      put(3, t, v.label, "Variant", v.label);
      put(3, t, v.label, "GPU (J)", fJ(st.gpu_j));
      put(3, t, v.label, "Links (J)", fJ(st.link_j));
      put(3, t, v.label, "Module (J)", fJ(st.module_j));
      put(3, t, v.label, "Total (J)", fJ(st.energy));
    }
    t = "Derived rates";
    const p = res.p;
    const derived = [
      ["GPU rate", fmt(p.gpu_rate / 1e12, 1), "TFLOP/s"],
      ["Module rate", fmt(moduleRate(p) / 1e9, 3), "billion values/s"],
      ["WAN latency, one way", fmt(p.alpha_wan * 1e6, 1), "µs"],
      ["Latency of a step inside a data centre", fmt(intraAlpha(p) * 1e6, 2), "µs"],
      ["Latency of a step across the WAN", fmt(wanAlpha(p) * 1e6, 2), "µs"],
    ];
    for (const [name, text, unit] of derived) {
      put(3, t, name, "Quantity", name);
      put(3, t, name, "Value", text);
      put(3, t, name, "Unit", unit);
    }
    t = "Break-evens";
    for (const b of res.breakevens) {
      put(4, t, b.label, "Comparison", b.label);
      put(4, t, b.label, "Break-even WAN bandwidth", fBreakEven(b.be));
      put(4, t, b.label, "Faster at the default WAN", faster(data, res, b.a, b.b));
    }
    t = "Repaired optics runs";
    for (const r of res.enob) {
      const row = r.run.slug;
      put(5, t, row, "Run", row);
      put(5, t, row, "ENOB", fmtGeneral(r.run.enob));
      put(5, t, row, "Planes", fmtInt(r.run.planes));
      put(5, t, row, "Full scale re-set every (steps)", fmtInt(r.run.fs_every));
      put(5, t, row, "Steps to target", fSteps(r.run.steps));
      put(5, t, row, "E vs A", fBreakEven(r.eVsA));
      put(5, t, row, "E′ vs A", fBreakEven(r.eprimeVsA));
    }
    t = "Break-even ENOB";
    const be = res.enobBreakEven;
    put(5, t, "Break-even ENOB", "Figure", "Break-even ENOB");
    put(5, t, "Break-even ENOB", "Value", be === null ? "none" : fmtGeneral(be.run.enob));
    put(5, t, "Beats A as", "Figure", "Beats A as");
    put(5, t, "Beats A as", "Value", be === null ? "neither" : be.via);
    t = "Time to target against WAN bandwidth";
    for (const g of data.grid) {
      const row = fGbps(g);
      put(6, t, row, "WAN bandwidth (GB/s)", row);
      const pg = withBw(p, g);
      /** @type {Record<string, Step>} */
      const cache = {};
      for (const v of data.variants) {
        if (!(v.mech in cache)) cache[v.mech] = step(pg, v.mech);
        const s = data.steps[v.key];
        put(6, t, row, v.label, fS(s === null ? null : s * cache[v.mech].total));
      }
      const other = step(Object.assign({}, pg, { layout: data.other_layout }), "A");
      const sa = data.steps.A;
      put(6, t, row, data.other_a_label, fS(sa === null ? null : sa * other.total));
    }
    t = "Quoted figures beside ours";
    let same = 0;
    for (const r of res.against) {
      const row = r.q.key;
      same += r.same ? 1 : 0;
      put(7, t, row, "Key", row);
      put(7, t, row, "Figure", r.q.what);
      put(7, t, row, "Quoted", r.q.text);
      put(7, t, row, "Ours", r.text);
      put(7, t, row, "Ours at the original's precision", r.shown);
      put(7, t, row, "Relative difference", fmtPct(r.rel));
      put(7, t, row, "Same at the original's precision", r.same ? "yes" : "no");
    }
    t = "Count";
    put(7, t, "Quoted figures compared", "Figure", "Quoted figures compared");
    put(7, t, "Quoted figures compared", "Value", fmtInt(res.against.length));
    put(7, t, "Same at the original's precision", "Figure", "Same at the original's precision");
    put(7, t, "Same at the original's precision", "Value", fmtInt(same));
    return out;
  }

  // ---- drawing (cit/svgplot.py's line chart) -----------------------------------------------
  //
  // The explorer's figure, time to target against WAN bandwidth, drawn as the build draws
  // its figures: the same layout, classes and coordinates, character for character, for
  // what the explorer draws (lines without seed bands, point marks or end numbers; marker
  // lines without registry numbers, since the closed form's values at the reader's
  // settings are not registered). The browser test compares the two on the same input.

  const FONT = 13;
  const MARGIN = 3;     // svgplot.MARGIN
  const LINE_GAP = 15;
  const CHAR_W = 0.6;
  /** @type {Record<string, string>} */
  const DASHES = { solid: "", dash: "6 4", dot: "1.5 3", dashdot: "6 3 1.5 3", longdash: "11 4" };

  /** @param {string} s */
  function esc(s) {
    return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;").replace(/'/g, "&#x27;");
  }

  // svgplot._f: one decimal, no trailing ".0", no "-0"
  /** @param {number} v */
  function coord(v) {
    const [i, f] = roundedDigits(v, 1);
    let s = (v < 0 || Object.is(v, -0) ? "-" : "") + i + "." + f;
    if (s.endsWith(".0")) s = s.slice(0, -2);
    return s === "-0" ? "0" : s;
  }

  /** @param {unknown} v @returns {v is number} */
  const finite = (v) => typeof v === "number" && Number.isFinite(v);
  /** @param {string} text @param {number} [size] */
  const textWidth = (text, size = FONT) => text.length * size * CHAR_W;

  /**
   * @typedef {{lo: number, hi: number, p0: number, p1: number, log: boolean}} Scale
   * @typedef {{title: string, log: boolean}} PlotAxis
   * @typedef {{key: string, label: string, x: (number|null)[], y: (number|null)[],
   *   colour: string, dash: string}} PlotLine
   * @typedef {{x: number, label: string}} PlotMarker
   * @typedef {[number, number]} Point
   */

  /** @param {Scale} s @param {number} v */
  function scaled(s, v) {
    const [a, b, t] = s.log ? [Math.log10(s.lo), Math.log10(s.hi), Math.log10(v)] : [s.lo, s.hi, v];
    return s.p0 + (t - a) / (b - a) * (s.p1 - s.p0);
  }

  /** @param {number} span @param {number} [target] */
  function niceStep(span, target = 5) {
    const raw = span / target;
    const mag = 10 ** Math.floor(Math.log10(raw));
    for (const m of [1, 2, 2.5, 5, 10]) if (m * mag >= raw) return m * mag;
    return 10 * mag;
  }

  /** @param {number[]} values @param {PlotAxis} axis @returns {[number, number, number[]]} */
  function domain(values, axis) {
    const vals = values.filter((v) => finite(v) && (!axis.log || v > 0));
    if (!vals.length) throw new Error("axis " + axis.title + ": no value to draw");
    let lo = Math.min(...vals);
    let hi = Math.max(...vals);
    if (axis.log) return logDomain(lo, hi);
    if (lo === hi) [lo, hi] = lo === 0 ? [lo - 1, hi + 1] : [lo - Math.abs(lo) / 2, hi + Math.abs(hi) / 2];
    const st = niceStep(hi - lo);
    const a = Math.floor(lo / st + 1e-9) * st;
    const b = Math.ceil(hi / st - 1e-9) * st;
    const ticks = [];
    for (let k = Math.ceil(a / st - 1e-9); k <= Math.floor(b / st + 1e-9); k += 1) ticks.push(pyRound(k * st, 12));
    return [a, b, ticks];
  }

  /** @param {number} lo @param {number} hi @returns {[number, number, number[]]} */
  function logDomain(lo, hi) {
    if (lo === hi) [lo, hi] = [lo / 2, hi * 2];
    const d0 = Math.floor(Math.log10(lo) + 1e-9);
    const d1 = Math.ceil(Math.log10(hi) - 1e-9);
    const decades = Math.max(1, d1 - d0);
    const mults = decades > 3 ? [1] : decades > 1 ? [1, 2, 5] : [1, 1.5, 2, 3, 5, 7];
    const set = new Set();
    for (let d = d0 - 1; d < d1 + 1; d += 1) for (const m of mults) set.add(pyRound(m * 10 ** d, 12));
    const cands = [...set].sort((x, y) => x - y);
    const a = Math.max(...cands.filter((c) => c <= lo * (1 + 1e-9)));
    const b = Math.min(...cands.filter((c) => c >= hi * (1 - 1e-9)));
    return [a, b, cands.filter((c) => a * (1 - 1e-9) <= c && c <= b * (1 + 1e-9))];
  }

  // svgplot.tick_text: thousands separated, no needless zeros
  /** @param {number} v */
  function tickText(v) {
    if (v === 0) return "0";
    if (Math.abs(v) >= 1000) return fmt(v, 0);
    const decimals = Math.max(0, -Math.floor(Math.log10(Math.abs(v))) + 2);
    const [i, f] = roundedDigits(v, decimals);
    let s = (v < 0 ? "-" : "") + i + (decimals > 0 ? "." + f : "");
    if (s.includes(".")) s = s.replace(/0+$/, "").replace(/\.$/, "");
    return s;
  }

  /** @param {number[]} ticks @param {Scale} s @param {boolean} log @param {number} [pad] */
  function fitTicks(ticks, s, log, pad = 8) {
    /** @param {number[]} ts */
    const fits = (ts) => ts.slice(1).every((b, k) => Math.abs(scaled(s, b) - scaled(s, ts[k]))
      >= (textWidth(tickText(ts[k])) + textWidth(tickText(b))) / 2 + pad);
    if (fits(ticks)) return ticks.slice();
    if (log) {
      const decades = ticks.filter((t) => Math.abs(Math.log10(t) - Math.round(Math.log10(t))) <= 1e-9);
      if (decades.length >= 2) {
        ticks = decades;
        if (fits(ticks)) return ticks;
      }
    }
    for (let k = 2; k < ticks.length; k += 1) {
      const every = ticks.filter((_, i) => i % k === 0);
      if (fits(every)) return every;
    }
    return ticks.length > 1 ? [ticks[0], ticks[ticks.length - 1]] : ticks.slice();
  }

  /** @param {Scale} sx @param {number[]} ticks @param {number} top @param {number} bottom @param {string} title */
  function xAxis(sx, ticks, top, bottom, title) {
    const grid = ticks.map((t) => "M" + coord(scaled(sx, t)) + " " + coord(top) + "V" + coord(bottom)).join("");
    const labels = ticks.map((t) => '<text x="' + coord(scaled(sx, t)) + '" y="' + coord(bottom + FONT + 3)
      + '">' + tickText(t) + "</text>").join("");
    const mid = (sx.p0 + sx.p1) / 2;
    return '<path class="fig-grid" d="' + grid + '"/><g class="fig-tick" text-anchor="middle">' + labels
      + '</g><text class="fig-axis-title" x="' + coord(mid) + '" y="' + coord(bottom + 2 * FONT + 10)
      + '" text-anchor="middle">' + esc(title) + "</text>";
  }

  /** @param {Scale} sy @param {number[]} ticks @param {number} left @param {number} right @param {string} title @param {number} titleY */
  function yAxis(sy, ticks, left, right, title, titleY) {
    const grid = ticks.map((t) => "M" + coord(left) + " " + coord(scaled(sy, t)) + "H" + coord(right)).join("");
    const labels = ticks.map((t) => '<text x="' + coord(left - 5) + '" y="' + coord(scaled(sy, t) + FONT * 0.35)
      + '">' + tickText(t) + "</text>").join("");
    return '<path class="fig-grid" d="' + grid + '"/><g class="fig-tick" text-anchor="end">' + labels
      + '</g><text class="fig-axis-title" x="' + coord(left - 5) + '" y="' + coord(titleY) + '">'
      + esc(title) + "</text>";
  }

  /** @param {Point} a @param {Point} b @param {Point} p */
  function offLine(a, b, p) {
    const dx = b[0] - a[0];
    const dy = b[1] - a[1];
    const length2 = dx * dx + dy * dy;
    const t = !length2 ? 0 : Math.max(0, Math.min(1, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / length2));
    return Math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy);
  }

  // svgplot._thin: drop the points on the straight line between their neighbours
  /** @param {(Point|null)[]} points @param {number} [tol] */
  function thin(points, tol = 0.05) {
    /** @type {(Point|null)[]} */
    const out = [];
    /** @type {Point[]} */
    let skipped = [];
    for (const p of points) {
      if (p === null) {
        out.push(null);
        skipped = [];
        continue;
      }
      const last = out[out.length - 1];
      const before = out[out.length - 2];
      if (out.length >= 2 && last && before) {
        const cand = skipped.concat([last]);
        if (cand.every((q) => offLine(before, p, q) <= tol)) {
          out[out.length - 1] = p;
          skipped = cand;
          continue;
        }
      }
      out.push(p);
      skipped = [];
    }
    return out;
  }

  /** @param {(Point|null)[]} points */
  function svgPath(points) {
    const out = [];
    /** @type {Point|null} */
    let last = null;
    const rounded = points.map((p) => (p === null ? null : /** @type {Point} */ ([pyRound(p[0], 1), pyRound(p[1], 1)])));
    for (const p of thin(rounded)) {
      if (p === null) {
        last = null;
        continue;
      }
      const [x, y] = p;
      if (last === null) out.push("M" + coord(x) + " " + coord(y));
      else {
        const dx = coord(x - last[0]);
        const dy = coord(y - last[1]);
        out.push("l" + dx + (dy.startsWith("-") ? dy : " " + dy));
      }
      last = [x, y];
    }
    return out.join("");
  }

  /** @param {number[]} wanted @param {number} gap @param {number} lo @param {number} hi */
  function spreadLabels(wanted, gap, lo, hi) {
    const order = wanted.map((_, i) => i).sort((i, j) => wanted[i] - wanted[j] || i - j);
    const pos = order.map((i) => Math.min(Math.max(wanted[i], lo), hi));
    for (let k = 1; k < pos.length; k += 1) pos[k] = Math.max(pos[k], pos[k - 1] + gap);
    if (pos.length && pos[pos.length - 1] > hi) {
      pos[pos.length - 1] = hi;
      for (let k = pos.length - 2; k >= 0; k -= 1) pos[k] = Math.min(pos[k], pos[k + 1] - gap);
    }
    const out = wanted.map(() => 0);
    order.forEach((i, k) => { out[i] = pos[k]; });
    return out;
  }

  /** @param {PlotMarker} m @param {number} k @param {Scale} sx @param {number} top @param {number} bottom */
  function marker(m, k, sx, top, bottom) {
    const x = scaled(sx, m.x);
    const ty = top + FONT + k * (FONT + 2);
    const width = textWidth(m.label);
    const right = x + 4 + width <= sx.p1;
    // to the left, kept MARGIN units inside the drawing (cit/svgplot.py _marker)
    const [tx, anchor] = right ? [x + 4, ""] : [Math.max(x - 4, width + MARGIN), ' text-anchor="end"'];
    return '<line class="fig-marker" x1="' + coord(x) + '" x2="' + coord(x) + '" y1="' + coord(top) + '" y2="'
      + coord(bottom) + '"/><text class="fig-marker-label" x="' + coord(tx) + '" y="' + coord(ty) + '"'
      + anchor + ">" + esc(m.label) + "</text>";
  }

  /**
   * svgplot.line_chart for the lines and markers the explorer draws.
   * @param {PlotLine[]} lines @param {PlotAxis} xa @param {PlotAxis} ya
   * @param {{title: string, desc: string, uid: string, markers?: PlotMarker[], width?: number, height?: number}} o
   */
  function lineChart(lines, xa, ya, o) {
    const markers = o.markers || [];
    const width = o.width === undefined ? 400 : o.width;
    const height = o.height === undefined ? 300 : o.height;
    if (!lines.length) throw new Error("figure " + o.uid + ": no line to draw");
    const num = (/** @type {(number|null)[]} */ vs) => vs.filter(finite);
    const [x0, x1, xticks] = domain(lines.flatMap((ln) => num(ln.x)).concat(markers.map((m) => m.x)), xa);
    const [y0, y1, yticks] = domain(lines.flatMap((ln) => num(ln.y)), ya);
    const right = Math.min(width * 0.42, Math.max(...lines.map((ln) => textWidth(ln.label))) + 16);
    const ytickW = Math.max(...yticks.map((t) => textWidth(tickText(t))));
    const left = ytickW + 12;
    const top = 2 * FONT + 6;
    const bottom = height - 2 * FONT - 16;
    /** @type {Scale} */
    const sx = { lo: x0, hi: x1, p0: left, p1: width - right, log: xa.log };
    /** @type {Scale} */
    const sy = { lo: y0, hi: y1, p0: bottom, p1: top, log: ya.log };
    /** @param {number|null} a @param {number|null} b @returns {Point|null} */
    const pt = (a, b) => (finite(a) && finite(b) && (!xa.log || a > 0) && (!ya.log || b > 0)
      ? [scaled(sx, a), scaled(sy, b)] : null);
    const body = [yAxis(sy, yticks, left, width - right, ya.title, FONT),
      xAxis(sx, fitTicks(xticks, sx, xa.log), top, bottom, xa.title)];
    for (const ln of lines) {
      if (!(ln.dash in DASHES)) throw new Error("line " + ln.key + ": dash " + ln.dash);
      const dash = DASHES[ln.dash];
      const da = dash ? ' stroke-dasharray="' + dash + '"' : "";
      body.push('<path class="fig-line c-' + ln.colour + '"' + da + ' d="' + svgPath(ln.x.map((a, i) => pt(a, ln.y[i]))) + '"/>');
    }
    const ordered = markers.slice().sort((a, b) => a.x - b.x || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0));
    for (let k = ordered.length - 1; k >= 0; k -= 1) body.push(marker(ordered[k], k, sx, top, bottom));
    body.push(endLabels(lines, sx, sy, ya.log, top, bottom, width - right));
    if (!o.uid || !/^[A-Za-z0-9-]+$/.test(o.uid)) throw new Error("figure id " + o.uid);
    return '<svg class="svg-figure" id="' + o.uid + '" viewBox="0 0 ' + coord(width) + " " + coord(height)
      + '" role="img" aria-labelledby="' + o.uid + '-t" aria-describedby="' + o.uid + '-d" font-size="'
      + FONT + '" xmlns="http://www.w3.org/2000/svg"><title id="' + o.uid + '-t">' + esc(o.title)
      + '</title><desc id="' + o.uid + '-d">' + esc(o.desc) + "</desc>" + body.join("") + "</svg>";
  }

  /** @param {PlotLine[]} lines @param {Scale} sx @param {Scale} sy @param {boolean} logY @param {number} top @param {number} bottom @param {number} xEnd */
  function endLabels(lines, sx, sy, logY, top, bottom, xEnd) {
    const ends = lines.map((ln) => {
      for (let i = ln.x.length - 1; i >= 0; i -= 1) {
        const a = ln.x[i];
        const b = ln.y[i];
        if (finite(a) && finite(b) && (!logY || b > 0)) return /** @type {Point} */ ([scaled(sx, a), scaled(sy, b)]);
      }
      return null;
    });
    const keep = ends.flatMap((p, i) => (p === null ? [] : [i]));
    const ys = spreadLabels(keep.map((i) => /** @type {Point} */ (ends[i])[1]), LINE_GAP, top + FONT / 2, bottom);
    return keep.map((i, k) => {
      const ln = lines[i];
      const [px, py] = /** @type {Point} */ (ends[i]);
      const ty = ys[k];
      const lx = xEnd + 6;
      const lead = Math.abs(ty - py) > 1 || lx - px > 8
        ? '<path class="fig-lead c-' + ln.colour + '" d="M' + coord(px) + " " + coord(py) + "L" + coord(lx - 2)
          + " " + coord(ty) + '"/>' : "";
      return lead + '<text class="fig-label" x="' + coord(lx) + '" y="' + coord(ty + FONT * 0.35) + '">'
        + esc(ln.label) + "</text>";
    }).join("");
  }

  // The explorer's figure (the build draws it at the recorded settings in
  // study/blocks/explorer.py, explorer_figure, from the same data.figure): every variant that
  // reaches the target, its time to target over the sweep's grid; the break-evens and the
  // set WAN bandwidth marked.

  // The figure's lines and markers at the given settings (the closed form's values).
  /** @param {ExplorerData} data @param {Partial<Controls>} [controls] */
  function figureInput(data, controls) {
    const res = evaluate(data, controls);
    const c = Object.assign({}, data.controls, controls || {});
    /** @type {PlotLine[]} */
    const lines = [];
    for (const v of data.variants) {
      const s = data.steps[v.key];
      if (s === null) continue;
      /** @type {(number|null)[]} */
      const y = data.grid.map((/** @type {number} */ g) => s * step(withBw(res.p, g), v.mech).total);
      lines.push({ key: v.key, label: v.label, x: data.grid.map((/** @type {number} */ g) => g / 1e9),
        y, colour: v.colour, dash: v.dash });
    }
    /** @type {PlotMarker[]} */
    const markers = res.breakevens.filter((b) => b.be.at !== null)
      .map((b) => ({ x: /** @type {number} */ (b.be.at) / 1e9, label: b.label }));
    markers.push({ x: c.wan_gbps, label: data.figure.set_label });
    return { lines, markers };
  }

  /** @param {ExplorerData} data @param {Partial<Controls>} [controls] */
  function figureSvg(data, controls) {
    const { lines, markers } = figureInput(data, controls);
    const f = data.figure;
    return lineChart(lines, f.x, f.y, { title: f.title, desc: f.desc, uid: f.uid, markers,
      width: f.width, height: f.height });
  }

  // ---- the page ------------------------------------------------------------------------------

  /** @param {HTMLFormElement} form @param {ExplorerData} data @returns {Controls} */
  function readControls(form, data) {
    const c = Object.assign({}, data.controls);
    /** @param {string} sel */
    const field = (sel) => /** @type {HTMLInputElement|null} */ (form.querySelector(sel));
    const wan = field('[name="wan"]');
    if (wan && wan.dataset.moved) c.wan_gbps = 10 ** Number(wan.value);
    const lat = field('[name="latency"]');
    if (lat && lat.dataset.moved) c.wan_latency_us = Number(lat.value);
    const budget = field('[name="budget"]');
    if (budget && budget.dataset.moved) c.module_budget_gflops = 10 ** Number(budget.value);
    const util = field('[name="utilisation"]');
    if (util && util.dataset.moved) c.utilisation = Number(util.value);
    const counts = field('[name="counts"]');
    if (counts) c.transform_counts = counts.checked;
    const layout = field('[name="layout"]:checked');
    if (layout) c.layout = layout.value;
    return c;
  }

  /** @param {Element|null} el (an output the page may lack) @param {string} text */
  function setText(el, text) {
    if (el === null) return;
    if (el.textContent !== text || !el.classList.contains("live")) {
      el.textContent = text;
      el.classList.add("live");
    }
  }

  /** @param {HTMLElement & {explorer?: object}} root */
  function mount(root) {
    const script = root.querySelector("script.explorer-data");
    if (!script) return null;
    /** @type {ExplorerData} */
    const data = JSON.parse(script.textContent || "null");
    const form = /** @type {HTMLFormElement|null} */ (root.querySelector("form.explorer-controls"));
    if (!form) return null;
    /** @type {Map<Element, string>} */
    const saved = new Map();
    root.querySelectorAll("[data-out]").forEach((el) => saved.set(el, el.innerHTML));

    const show = () => {
      const c = readControls(form, data);
      const res = evaluate(data, c);
      const out = (/** @type {string} */ sel) => root.querySelector(sel);
      const o = (/** @type {string} */ name) => out('[data-out="' + name + '"]');
      if (o("wan")) setText(o("wan"), fmtSig(c.wan_gbps, 3));
      if (o("latency")) setText(o("latency"), fmt(c.wan_latency_us, 1));
      if (o("budget")) setText(o("budget"), fmtSig(c.module_budget_gflops, 3));
      if (o("utilisation")) setText(o("utilisation"), fmt(c.utilisation, 2));
      for (const v of res.variants) {
        const row = out('[data-variant="' + v.key + '"]');
        if (!row) continue;
        setText(row.querySelector('[data-out="step"]'), fMs(v.step.total));
        setText(row.querySelector('[data-out="time"]'), fS(v.time));
        setText(row.querySelector('[data-out="energy"]'), fKj(v.energy));
      }
      for (const b of res.breakevens) {
        const cell = out('[data-breakeven="' + b.id + '"]');
        if (cell) setText(cell, fBreakEven(b.be));
      }
      const e = o("enob");
      if (e) setText(e, res.enobBreakEven === null ? "none" : fmtGeneral(res.enobBreakEven.run.enob));
      const same = o("against-same");
      if (same) setText(same, fmtInt(res.against.filter((r) => r.same).length));
      const total = o("against-total");
      if (total) setText(total, fmtInt(res.against.length));
      const fig = o("figure");
      if (fig) {
        // HTML this script made from numbers alone (lineChart escapes every label)
        fig.innerHTML = figureSvg(data, c);
        fig.classList.add("live");
      }
      return res;
    };

    const reset = () => {
      form.reset();
      form.querySelectorAll("input").forEach((i) => { delete i.dataset.moved; });
      saved.forEach((html, el) => { el.innerHTML = html; el.classList.remove("live"); });
    };

    form.addEventListener("input", (ev) => {
      const target = /** @type {HTMLInputElement|null} */ (ev.target);
      if (target && target.name) target.dataset.moved = "1";
      show();
    });
    form.addEventListener("change", () => show());
    form.addEventListener("submit", (ev) => ev.preventDefault());
    const resetButton = form.querySelector('[data-action="reset"]');
    if (resetButton) resetButton.addEventListener("click", (ev) => { ev.preventDefault(); reset(); });
    form.hidden = false;
    const note = /** @type {HTMLElement|null} */ (root.querySelector(".explorer-note"));
    if (note) note.hidden = true;
    const liveNote = /** @type {HTMLElement|null} */ (root.querySelector(".explorer-live-note"));
    if (liveNote) liveNote.hidden = false;
    root.classList.add("explorer-ready");
    root.explorer = { data, show, reset, evaluate: (/** @type {Partial<Controls>} */ c) => evaluate(data, c) };
    return root.explorer;
  }

  Object.assign(globalThis, { citExplorer: {
    figureInput, figureSvg, lineChart, fmt, fmtInt, fmtSig, fmtGeneral, fGbps, fmtPct, fBreakEven, paramsFrom, moduleRate, intraAlpha, wanAlpha, ringPath,
    step, breakEven, evaluate, computeCells, mount,
  } });

  if (typeof document !== "undefined") {
    const start = () => document.querySelectorAll("[data-explorer]")
      .forEach((r) => mount(/** @type {HTMLElement} */ (r)));
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
    else start();
  }

})();
