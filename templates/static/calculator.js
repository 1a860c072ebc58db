// The in-page calculator: the build's formulas (render/calculator/formulas.py) evaluated in exact fractions,
// rounded half up when printed (render/numbers.py). docs/editing.md, "The calculator on a page".
"use strict";
var VramCalculator = (function () {
  // -- exact fractions ---------------------------------------------------------
  function gcd(a, b) { if (a < 0n) a = -a; while (b) { var t = a % b; a = b; b = t; } return a; }
  // Reduced by their greatest common divisor only once they grow past BIG (the value is the same either way).
  var BIG = 1n << 512n;
  function Q(n, d) {
    if (d === undefined) d = 1n;
    if (d < 0n) { n = -n; d = -d; }
    if (d < BIG && n < BIG && -n < BIG) return { n: n, d: d };
    var g = gcd(n, d) || 1n;
    return { n: n / g, d: d / g };
  }
  function reduced(a) { var g = gcd(a.n, a.d) || 1n; return { n: a.n / g, d: a.d / g }; }
  function dec(text) {  // "671.026419" -> 671026419/1000000
    var s = String(text), neg = s[0] === "-", body = neg ? s.slice(1) : s, dot = body.indexOf(".");
    var digits = dot < 0 ? body : body.slice(0, dot) + body.slice(dot + 1);
    var n = BigInt(digits), d = 10n ** BigInt(dot < 0 ? 0 : body.length - dot - 1);
    return Q(neg ? -n : n, d);
  }
  var ZERO = Q(0n), ONE = Q(1n);
  function add(a, b) { return Q(a.n * b.d + b.n * a.d, a.d * b.d); }
  function sub(a, b) { return Q(a.n * b.d - b.n * a.d, a.d * b.d); }
  function mul(a, b) { return Q(a.n * b.n, a.d * b.d); }
  function div(a, b) { return Q(a.n * b.d, a.d * b.n); }
  function cmp(a, b) { var x = a.n * b.d, y = b.n * a.d; return x < y ? -1 : x > y ? 1 : 0; }
  function ceil(a) { var q = a.n / a.d; return Q(a.n > q * a.d ? q + 1n : q); }
  function int(v) { return Q(BigInt(v)); }
  // a^k for a whole k ≥ 0, by squaring, each product cut to 40 decimals (an exact power would take seconds).
  var POW_SCALE = 10n ** 40n;
  function cut(a) { return Q(a.n * POW_SCALE / a.d, POW_SCALE); }
  function powQ(a, k) {
    var result = ONE, base = a;
    while (k > 0n) {
      if (k & 1n) result = cut(mul(result, base));
      base = cut(mul(base, base));
      k >>= 1n;
    }
    return result;
  }

  // -- figures: a value that remembers its formula (vramsite/calc/figure.py) -----
  function F(v, unit, kind, label, op, terms) {
    return { v: v, unit: unit || "", kind: kind || "factor", label: label || "", op: op || null, terms: terms || null };
  }
  function given(v, unit, kind, label) { return F(typeof v === "object" ? v : int(v), unit, kind, label); }
  function floorQ(a) { var q = a.n / a.d; return a.n < 0n && q * a.d !== a.n ? q - 1n : q; }

  // -- formulas: the templates the build hands over (vramsite/render/calculator/formulas.py) --------------
  // A node: an input (n), a number (v), or an operation (o) on the nodes at the places t, scaled by s.
  var OPERATIONS = {
    "×": function (v) { return v.reduce(mul, ONE); },
    "÷": function (v) { return div(v[0], v[1]); },
    "+": function (v) { return v.reduce(add, ZERO); },
    "−": function (v) { return sub(v[0], v[1]); },
    "min": function (v) { return v.reduce(function (a, b) { return cmp(b, a) < 0 ? b : a; }); },
    "max": function (v) { return v.reduce(function (a, b) { return cmp(b, a) > 0 ? b : a; }); },
    "⌊÷⌋": function (v) { return Q(floorQ(div(v[0], v[1]))); },
    "⌈÷⌉": function (v) { return ceil(div(v[0], v[1])); },
    "^": function (v) { return powQ(v[0], v[1].n / v[1].d); }
  };
  // The figure of template node `index` of `nodes` for `inputs`: name -> a number (a fraction) or a figure it
  // stands for.
  function evaluateIn(nodes, index, inputs) {
    var x = nodes[index];
    if (x.n !== undefined) {
      var value = inputs[x.n];
      if (value === undefined) throw new Error("the formula needs " + x.n);
      return value.v !== undefined ? value : F(value, x.u, x.k, x.l);
    }
    if (x.o === undefined) return F(dec(x.v), x.u, x.k, x.l);
    var terms = x.t.map(function (t) { return evaluateIn(nodes, t, inputs); });
    var v = x.v !== undefined ? dec(x.v) : OPERATIONS[x.o](terms.map(function (t) { return t.v; }));
    if (x.s !== undefined) v = mul(v, dec(x.s));
    return F(v, x.u, x.k, x.l, x.o, terms);
  }
  function evaluate(data, index, inputs) { return evaluateIn(data.formulas.nodes, index, inputs); }
  // A real model's file (vramsite/render/calculator/data.py model_files): its own templates, its serving figures.
  function modelFile(data, c) { return data.model_files[c.model.id]; }
  function evaluateOwn(data, c, template, inputs) { return evaluateIn(modelFile(data, c).formulas.nodes, template, inputs); }
  // The inputs a model's sizes give: a reference shape's (or the reader's own) every size, a real model's its
  // parameters (its layers are in its own templates).
  function modelInputs(model, inputs) {
    inputs.params = dec(model.params);
    if (model.shape === "reference") {
      ["layers", "kv_heads", "head_dim"].forEach(function (name) { if (model[name] != null) inputs[name] = int(model[name]); });
    } else {
      inputs.active = dec(model.active);
    }
    return inputs;
  }
  function cacheInputs(c) { return { kv_bytes: dec(c.kv.bytes), context: int(c.context), batch: int(c.batch) }; }

  // -- memory (vramsite/calc/memory.py, attention.py, through their templates) -----
  function cacheOf(data, c, cards) {
    if (c.model.shape === "reference") return evaluate(data, data.formulas.cache.reference, modelInputs(c.model, cacheInputs(c)));
    return evaluateOwn(data, c, modelFile(data, c).formulas.cache[String(cards)], cacheInputs(c));
  }
  function need(data, c, cards) {
    var t = data.formulas.need[c.method.id], inputs = modelInputs(c.model, {});
    if (c.method.kv_cache) inputs.cache = cacheOf(data, c, cards);
    var part = function (name) { return evaluate(data, t[name], inputs); };
    return { weights: part("weights"), adapter: part("adapter"), cache: part("kv_cache"), margin: part("margin"),
      overhead: part("overhead"), total: part("total") };
  }
  function perToken(data, c) {
    if (!c.method.kv_cache || !c.kv) return null;
    var inputs = { kv_bytes: dec(c.kv.bytes) };
    if (c.model.shape !== "reference") return evaluateOwn(data, c, modelFile(data, c).formulas.per_token, inputs);
    return c.model.layers == null ? null : evaluate(data, data.formulas.per_token.reference, modelInputs(c.model, inputs));
  }

  // -- rules, offers, the lookup (vramsite/calc/rules.py, offers.py, lookup.py) --
  function allows(offer, method) {
    if (method.feature && offer.features.indexOf(method.feature) < 0) return false;
    return offer.count === 1 || !method.all_to_all || offer.links;
  }
  function perCardFigure(data, needFig, n) { return evaluate(data, data.formulas.per_card[String(n)], { need: needFig }); }
  function headroom(data, offer, needFig) {
    return evaluate(data, data.formulas.headroom[String(offer.count)], { memory: dec(offer.memory), need: needFig });
  }
  function orderPrice(data, offer) { return evaluate(data, offer.price, {}); }
  function ceiling(data, c, offer) {
    var method = c.method;
    if (method.kind !== "inference" || !method.precision) return null;
    var resident = evaluate(data, data.formulas.resident[c.model.shape][method.precision], modelInputs(c.model, {}));
    return evaluate(data, data.formulas.ceiling[String(offer.count)], { bandwidth: dec(offer.bandwidth), resident: resident });
  }

  // -- text (vramsite/render/numbers.py, format.py, derivation.py) ----------------
  function Words(data) { this.data = data; }
  Words.prototype.spec = function (f) {
    var base = this.data.display[f.kind] || { decimals: 2, trim: true, below_10: null };
    if (f.op === null) {
      var digits = decimalDigits(f.v);
      if (digits > base.decimals) return { decimals: digits, trim: base.trim, below_10: null };
    }
    return base;
  };
  function decimalDigits(v) {  // the decimals of a terminating fraction, trailing zeros dropped
    var d = reduced(v).d, twos = 0, fives = 0;
    while (d % 2n === 0n) { d /= 2n; twos++; }
    while (d % 5n === 0n) { d /= 5n; fives++; }
    return d === 1n ? Math.max(twos, fives) : 0;
  }
  function halfUp(v, decimals) {  // |v| × 10^decimals rounded half up, as a BigInt
    var scale = 10n ** BigInt(decimals), n = v.n < 0n ? -v.n : v.n;
    var q = (n * scale) / v.d, rest = n * scale - q * v.d;
    return 2n * rest >= v.d ? q + 1n : q;
  }
  Words.prototype.number = function (f) {
    var spec = this.spec(f), decimals = spec.decimals;
    if (spec.below_10 != null && halfUp(f.v, spec.below_10) < 10n * 10n ** BigInt(spec.below_10)) decimals = spec.below_10;
    var digits = halfUp(f.v, decimals).toString().padStart(decimals + 1, "0");
    var whole = digits.slice(0, digits.length - decimals), part = digits.slice(digits.length - decimals);
    if (spec.trim) part = part.replace(/0+$/, "");
    var sym = this.data.number;
    var grouped = whole.replace(/\B(?=(\d{3})+$)/g, sym.group);
    return (f.v.n < 0n ? sym.minus : "") + grouped + (part ? sym.decimal + part : "");
  };
  Words.prototype.figure = function (f, period) {
    var money = this.data.money;
    if (Object.prototype.hasOwnProperty.call(money, f.unit)) {
      var amount = "$" + this.number(f), pattern = money[f.unit];
      return period && pattern ? pattern.replace("{money}", amount) : amount;
    }
    if (f.unit === "GB/s" && f.kind === "bandwidth" && cmp(f.v, int(1000)) >= 0) {
      f = F(div(f.v, int(1000)), "TB/s", f.kind, f.label, f.op, f.terms);
    }
    var forms = this.data.units[f.unit] || ["{n} " + f.unit, "{n} " + f.unit];
    var text = this.number(f);
    if (forms[0] === "{n}") return text;
    var one = cmp(f.v, ONE) === 0;
    return forms[one ? 0 : 1].replace("{n}", text);
  };
  Words.prototype.label = function (msgid) { return this.data.labels[msgid] || msgid; };
  Words.prototype.ui = function (msgid) { return this.data.ui[msgid] || msgid; };
  Words.prototype.explain = function (f) {
    if (!f.op || isItsTerm(f)) return "";
    var self = this, result = this.figure(f);
    var term = function (t, named) { var text = self.figure(t); return named && t.label ? self.label(t.label) + " " + text : text; };
    if (f.op === "⌈÷⌉") return "⌈" + term(f.terms[0]) + " ÷ " + term(f.terms[1]) + "⌉ = " + result;
    if (f.op === "max" || f.op === "min") {
      return this.ui(f.op === "max" ? "the larger of {a} and {b}" : "the smaller of {a} and {b}")
        .replace("{a}", term(f.terms[0])).replace("{b}", term(f.terms[1])) + " = " + result;
    }
    if (f.op === "^") return term(f.terms[0]) + " ^ " + self.number(f.terms[1]) + " = " + result;
    var named = f.op === "+" || f.op === "−";
    return f.terms.map(function (t) { return term(t, named); }).join(" " + f.op + " ") + " = " + result;
  };
  // A sum of one term says nothing its term does not (render/derivation.py _is_its_term).
  function isItsTerm(f) { return f.terms.length === 1 && cmp(f.terms[0].v, f.v) === 0 && f.terms[0].unit === f.unit; }
  Words.prototype.line = function (f) { return { label: this.label(f.label), value: this.figure(f), explain: this.explain(f) }; };
  Words.prototype.config = function (offer) {
    return offer.count === 1 ? offer.name : this.ui("{count}× {card}").replace("{count}", this.number(given(offer.count))).replace("{card}", offer.name);
  };

  // -- one case, answered ---------------------------------------------------------
  function findById(list, id) { for (var i = 0; i < list.length; i++) if (list[i].id === id) return list[i]; return null; }

  // The case a state names: the model, method and formats it points at, or null where one is unknown.
  function resolve(data, state) {
    var model = state.model === "custom" ? customModel(state) : findById(data.models, state.model);
    var method = state.method === "inference" ? data.inference[state.precision] : findById(data.methods, state.method);
    if (!model || !method) return null;
    var kv = data.kv_precisions.length ? findById(data.kv_precisions, state.kv_precision) : null;
    if (data.kv_precisions.length && !kv) return null;
    return { model: model, method: method, kv: kv, context: state.context, batch: state.batch,
      format: servedFormat(data, state), engine: state.engine, card: state.card };
  }
  // The weight format a state is served in, where its engine sizes it (answer.py serving_format).
  function servedFormat(data, state) {
    var model = findById(data.models, state.model);
    if (!model || model.native === undefined || state.method !== "inference") return null;
    return data.model_files[model.id].serving.formats[state.format] ? state.format : model.native;
  }
  // The engine a served state is sized by: the state's where the site has it (it may not load the format: that
  // is the answer then), else the format's own (answer.py serving_engine_of).
  function servedEngine(data, c) {
    return findById(data.engines, c.engine) || findById(data.engines, modelFile(data, c).serving.formats[c.format].engine);
  }
  function customModel(state) {
    return { id: "custom", name: "custom", shape: "reference", params: state.params, layers: state.layers,
      kv_heads: state.kv_heads, head_dim: state.head_dim };
  }

  // -- a catalogue model served by its engine (vramsite/render/calculator/answer.py served_answer) ----------
  function servedRow(data, w, c, f, held, o, entry) {
    var cards = o.count, served = data.formulas.served;
    var sequences = modelFile(data, c).formulas.sequences[held.request ? "request" : "heads"][String(cards)];
    var perTok = evaluateOwn(data, c, sequences[0], cacheInputs(c)).v, need = evaluateOwn(data, c, sequences[1], cacheInputs(c)).v;
    var own = Array.isArray(entry), room = dec(own ? entry[0] : entry);
    var weights = dec(own ? entry[1] : held.weights_per_card[String(cards)]);
    if (cmp(room, need) < 0) return null;
    if (!held.request) {
      var tokens = perTok.n !== 0n && room.n > 0n ? floorQ(div(room, perTok)) : 0n;
      if (tokens <= 0n || tokens < BigInt(c.context)) return null;
    }
    var headroom = evaluate(data, served.headroom, { room: room, need: need });
    var price = orderPrice(data, o);
    var speed = servedSpeed(data, c, f, held, o, room);
    var limit = dec(cards === 1 ? data.market.tight_single : data.market.tight_per_card);
    var row = { key: cards + "x-" + o.card, config: w.config(o), per_card: w.figure(evaluate(data, served.per_card, { weights: weights })),
      headroom: w.figure(headroom), headroom_explain: "", price: w.figure(price, true), price_explain: w.explain(price),
      ceiling: "", ceiling_explain: "" };
    speedCells(w, speed, row);
    row.tight = cmp(headroom.v, limit) < 0;
    row.price_value = price.v;
    return row;
  }
  // An offer's speed cells and their explanations (answer.py SPEED_CELLS, _speed_cells), "" where it has none.
  var SPEED_CELLS = ["one", "per_million_one", "sequences", "full", "per_million", "first_token"];
  function speedCells(w, speed, row) {
    SPEED_CELLS.forEach(function (name) {
      row[name] = speed ? w.figure(speed[name]) : "";
      row[name + "_explain"] = speed ? w.explain(speed[name]) : "";
    });
  }
  // What an offer decodes (answer.py _speed_of): one sequence, the full batch the engine holds there, what a
  // million tokens cost at each, the seconds to the first token; null where the pages give the card no speeds.
  function servedSpeed(data, c, f, held, o, room) {
    var t = data.formulas.served, own = modelFile(data, c).formulas, card = findById(data.cards, o.card), m = c.model;
    if (!t.speed || !card || !card.rates) return null;
    var rate = card.rates[c.format], split = held.request ? "request" : "heads", kind = m.experts ? "moe" : "dense";
    var inputs = { dense_read: dec(f.dense_read), expert_bytes: dec(f.expert_bytes),
      sequence: evaluateOwn(data, c, own.sequence, cacheInputs(c)), context: int(c.context), active: dec(m.active),
      layers: int(m.layer_count), hidden: int(m.hidden), bandwidth: dec(o.bandwidth), tflops: dec(rate[0]),
      matmul_share: dec(rate[1]), link: dec(card.link),
      peer_link: dec(card.peer_link) };
    if (m.experts) { inputs.experts = int(m.experts[0]); inputs.experts_per_token = int(m.experts[1]); }
    var decode = function (sequences) {
      inputs.batch = int(sequences);
      return evaluate(data, t.speed[split][String(o.count)][kind], inputs);
    };
    var sequences = BigInt(c.batch);
    if (!held.request) {
      var single = cacheInputs(c);
      single.batch = ONE;
      var each = evaluateOwn(data, c, own.sequences[split][String(o.count)][1], single).v;
      sequences = floorQ(div(room, each));
      var cap = card.limits[held.engine];
      if (cap !== undefined && BigInt(cap) < sequences) sequences = BigInt(cap);
    }
    var full = decode(sequences), one = decode(1n);
    var perMillion = function (speed) { return evaluate(data, t.cost[String(o.count)], { hourly: dec(card.hourly), speed: speed }); };
    return { one: one, per_million_one: perMillion(one), sequences: given(sequences, "sequences", "count", "sequences at once"),
      full: full, per_million: perMillion(full),
      first_token: evaluate(data, t.first_token[split][String(o.count)][kind], inputs) };
  }
  // The index of the lowest price where it is below the first, the selection rule's pick (the first of equal
  // prices); -1 where the pick is the cheapest (vramsite/calc/lookup.py cheapest_after).
  function cheapestAfter(prices) {
    var lowest = -1;
    prices.forEach(function (p, i) { if (lowest < 0 || cmp(p, prices[lowest]) < 0) lowest = i; });
    return lowest >= 0 && cmp(prices[lowest], prices[0]) < 0 ? lowest : -1;
  }
  // The selection rule's pick, with the cheapest beside it where that costs less.
  function firstChoice(offers) {
    var choice = { config: offers[0].config, price: offers[0].price, tight: offers[0].tight };
    var found = cheapestAfter(offers.map(function (o) { return o.price_value; }));
    if (found >= 0) choice.cheapest = { config: offers[found].config, price: offers[found].price };
    offers.forEach(function (o) { delete o.price_value; });
    return choice;
  }
  function servedAnswer(data, c) {
    var w = new Words(data), f = modelFile(data, c).serving.formats[c.format], engine = servedEngine(data, c);
    var lines = [w.line(evaluate(data, data.formulas.served.weights, { stored: dec(f.weight_bytes) })),
      w.line(cacheOf(data, c, 1))];
    var t = perToken(data, c);
    var result = { lines: lines, per_token: t ? w.line(t) : null, offers: [], total: false, engine: engine.name,
      caption: w.ui("Where {engine} starts").replace("{engine}", engine.name) };
    if (c.model.as_shipped && BigInt(c.context) > BigInt(c.model.as_shipped)) {
      result.scaling = w.ui("Beyond {tokens} tokens this holds only when the engine is started with the RoPE scaling named on the model's page.")
        .replace("{tokens}", w.number(given(c.model.as_shipped, "", "count")));
    }
    if (engine.loads.indexOf(c.format) < 0) {
      var named = findById(data.formats, c.format);
      result.choice = { none: w.ui("{engine} does not load {format}.").replace("{engine}", engine.name)
        .replace("{format}", named ? named.label : c.format) };
      return result;
    }
    var stored = data.serving_kv[engine.id] || {};
    if (!Object.prototype.hasOwnProperty.call(stored, c.kv.id)) {
      result.choice = { none: w.ui("{engine} does not store this KV cache format.").replace("{engine}", engine.name) };
      return result;
    }
    var held = { request: engine.request, engine: engine.id, weights_per_card: {}, rooms: {} };
    var rooms = modelFile(data, c).rooms, found = rooms[c.format] && rooms[c.format][engine.id];
    if (found) { held.weights_per_card = found.weights_per_card; held.rooms = found.rooms; }
    data.offers.forEach(function (o) {
      if (c.card && o.card !== c.card) return;
      var entry = held.rooms[o.count + "x-" + o.card];
      if (!entry) return;
      var row = servedRow(data, w, c, f, held, o, entry);
      if (row) result.offers.push(row);
    });
    if (result.offers.length) {
      result.choice = firstChoice(result.offers);
    } else if (c.card) {
      result.choice = { none: w.ui("{engine} starts it on no configuration of {card} we rent.").replace("{engine}", engine.name)
        .replace("{card}", findById(data.cards, c.card).name) };
    } else {
      result.choice = { none: w.ui("{engine} starts it on none of our configurations.").replace("{engine}", engine.name) };
    }
    return result;
  }

  function answer(data, state) {
    var c = resolve(data, state);
    if (c.format) return servedAnswer(data, c);
    var w = new Words(data), m = need(data, c, 1), method = c.method;
    var lines = [w.line(m.weights)];
    if (method.adapter) lines.push(w.line(m.adapter));
    if (method.kv_cache) lines.push(w.line(m.cache));
    if (m.margin.v.n !== 0n) lines.push(w.line(m.margin));
    if (m.overhead.v.n !== 0n) lines.push(w.line(m.overhead));
    lines.push(w.line(m.total));
    var layered = c.model.shape !== "reference", needs = {};
    var needOn = function (cards) { if (!layered) return m.total; if (!needs[cards]) needs[cards] = need(data, c, cards).total; return needs[cards]; };
    var allowed = data.offers.filter(function (o) { return allows(o, method); });
    var offers = [];
    allowed.forEach(function (o) {
      if (c.card && o.card !== c.card) return;
      var held = needOn(o.count);
      if (cmp(held.v, mul(dec(o.memory), int(o.count))) > 0) return;
      var room = headroom(data, o, held), price = orderPrice(data, o), top = ceiling(data, c, o);
      var limit = dec(o.count === 1 ? data.market.tight_single : data.market.tight_per_card);
      var row = { key: o.count + "x-" + o.card, config: w.config(o), per_card: w.figure(perCardFigure(data, held, o.count)),
        headroom: w.figure(room), headroom_explain: w.explain(room), price: w.figure(price, true),
        price_explain: w.explain(price), ceiling: top ? w.figure(top) : "", ceiling_explain: top ? w.explain(top) : "" };
      speedCells(w, null, row);
      row.tight = cmp(room.v, limit) < 0;
      row.price_value = price.v;
      offers.push(row);
    });
    var choice = offers.length ? firstChoice(offers)
      : c.card ? { none: w.ui("No configuration of {card} we rent holds it.").replace("{card}", findById(data.cards, c.card).name) }
      : nodesNeeded(data, w, allowed, needOn);
    return { lines: lines, per_token: (function () { var t = perToken(data, c); return t ? w.line(t) : null; })(),
      offers: offers, choice: choice, total: true, caption: w.ui("Cards that fit") };
  }
  function nodesNeeded(data, w, allowed, needOn) {
    var n = data.market.node_cards, largest = null;
    allowed.forEach(function (o) {
      if (o.count !== n) return;
      if (!largest || cmp(dec(o.memory), dec(largest.memory)) > 0 || (cmp(dec(o.memory), dec(largest.memory)) === 0 && o.card > largest.card)) largest = o;
    });
    var nodes = "—";
    if (largest) {
      nodes = w.figure(evaluate(data, data.formulas.nodes_needed, { memory: dec(largest.memory), need: needOn(n) }));
    }
    return { nodes: nodes, sales: w.ui("talk to sales") };
  }

  // -- the answer as markup (vramsite/render/calculator/markup.py answer_html writes the same) --
  function e(text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&#34;").replace(/'/g, "&#39;");
  }
  function answerHtml(result, data) {
    var ui = data.ui, out = [], rows = result.lines.concat(result.per_token ? [result.per_token] : []);
    out.push('<dl class="calc-lines">');
    rows.forEach(function (line, i) {
      out.push('<div class="calc-line' + (result.total && i === result.lines.length - 1 ? " calc-total" : "") + '"><dt>' + e(line.label) + "</dt><dd>" + e(line.value) + "</dd></div>");
    });
    out.push("</dl>");
    var choice = result.choice, offers = result.offers;
    if (choice.none !== undefined) {
      out.push('<p class="calc-choice">' + e(choice.none) + "</p>");
    } else if (choice.nodes !== undefined) {
      out.push('<p class="calc-choice">' + e(ui["Nothing fits: it takes {nodes}; talk to sales."].replace("{nodes}", choice.nodes)) + "</p>");
    } else {
      out.push('<p class="calc-choice"><strong>' + e(data.rule) + "</strong> " + flagged(ui["{choice}, {price}"].replace("{choice}", choice.config).replace("{price}", choice.price), choice.tight, ui) + "</p>");
      if (choice.cheapest) out.push('<p class="calc-cheapest">' + e(ui["Cheapest: {choice}, {price}"].replace("{choice}", choice.cheapest.config).replace("{price}", choice.cheapest.price)) + "</p>");
    }
    if (result.scaling) out.push('<p class="calc-note">' + e(result.scaling) + "</p>");
    var steps = rows.map(function (l) { return l.explain; }).filter(Boolean);
    if (offers.length) ["headroom_explain", "price_explain", "ceiling_explain", "full_explain", "per_million_explain"].forEach(function (k) { if (offers[0][k]) steps.push(offers[0][k]); });
    out.push('<details class="calc-arith"><summary>' + e(ui.Arithmetic) + "</summary><ul>");
    steps.forEach(function (step) { out.push("<li>" + e(step) + "</li>"); });
    out.push("</ul></details>");
    if (offers.length) {
      var shown = data.offers_shown, heads = offerHeads(result);
      out.push(offersTable(offers.slice(0, shown), heads, ui, result.caption, true));
      if (offers.length > shown) {
        var more = ui["More configurations ({count})"].replace("{count}", String(offers.length - shown));
        out.push('<details class="calc-more"><summary>' + e(more) + "</summary></details>");
      }
    }
    return out.join("");
  }
  // Text escaped, with the tight flag after it where tight, joined as the language joins them (markup.py _flagged).
  function flagged(text, tight, ui) {
    if (!tight) return e(text);
    var flag = '<span class="flag">' + e(ui.tight) + "</span>";
    return e(ui["{figure} {flag}"]).replace("{flag}", function () { return flag; }).replace("{figure}", function () { return e(text); });
  }
  // The offers table's columns (markup.py offer_heads, SPEED_HEADS).
  var SPEED_HEADS = ["One sequence", "Per million tokens, one sequence", "Sequences at once", "All sequences",
    "Per million tokens, full batch", "First token"];
  function offerHeads(result) {
    var offers = result.offers, heads = ["Configuration", "Price", "Headroom per card", "Per card"];
    if (offers.some(function (o) { return o.ceiling; })) heads.push("Decode ceiling");
    if (offers.some(function (o) { return o.one; })) heads = heads.concat(SPEED_HEADS);
    return heads;
  }
  // The configurations behind "More configurations", drawn when the reader opens it (the page's markup and
  // answerHtml leave it empty): into ``more`` while open, emptied when it closes.
  function fillMore(more, result, data) {
    var summary = more.querySelector("summary"), shown = data.offers_shown, offers = result.offers;
    while (summary.nextSibling) more.removeChild(summary.nextSibling);
    if (more.open) more.insertAdjacentHTML("beforeend", offersTable(offers.slice(shown), offerHeads(result), data.ui, summary.textContent, false));
  }
  function offersTable(offers, heads, ui, name, caption) {
    var out = ['<div class="calc-offers" role="region" tabindex="0" aria-label="' + e(name) + '"><table>'];
    if (caption) out.push("<caption>" + e(name) + "</caption>");
    out.push("<thead><tr>");
    heads.forEach(function (h) { out.push('<th scope="col">' + e(ui[h]) + "</th>"); });
    out.push("</tr></thead><tbody>");
    offers.forEach(function (o) {
      out.push("<tr>" + '<th scope="row">' + e(o.config) + "</th>" +
        '<td title="' + e(o.price_explain) + '">' + e(o.price) + "</td>" +
        '<td title="' + e(o.headroom_explain) + '">' + flagged(o.headroom, o.tight, ui) + "</td>" +
        "<td>" + e(o.per_card) + "</td>" +
        (heads.indexOf("Decode ceiling") >= 0 ? '<td title="' + e(o.ceiling_explain) + '">' + e(o.ceiling) + "</td>" : "") +
        (heads.indexOf("One sequence") >= 0 ? SPEED_CELLS.map(function (k) { return '<td title="' + e(o[k + "_explain"]) + '">' + e(o[k]) + "</td>"; }).join("") : "") + "</tr>");
    });
    out.push("</tbody></table></div>");
    return out.join("");
  }
  function summary(result, data) {
    var total = result.lines[result.lines.length - 1].value, c = result.choice, ui = data.ui;
    if (c.none !== undefined) return c.none;
    if (result.engine) {
      return ui["{engine} starts it. {rule}: {choice}, {price}."].replace("{engine}", result.engine).replace("{rule}", data.rule)
        .replace("{choice}", c.config).replace("{price}", c.price);
    }
    if (c.nodes !== undefined) return ui["Needs {total}. Nothing fits."].replace("{total}", total);
    return ui["Needs {total}. {rule}: {choice}, {price}."].replace("{total}", total).replace("{rule}", data.rule)
      .replace("{choice}", c.config).replace("{price}", c.price);
  }

  // -- what the reader typed ---------------------------------------------------------
  // Which fields a state reads (the custom shape's for a custom model; context and batch with a KV cache).
  function fieldsOf(data, raw) {
    var method = raw.method === "inference" ? data.inference[raw.precision] : findById(data.methods, raw.method);
    var kv = data.kv_precisions.length > 0 && (!method || method.kv_cache);
    var custom = raw.model === "custom";
    var listed = findById(data.models, raw.model), served = raw.method === "inference" && !!listed && listed.native !== undefined;
    return { params: custom, layers: custom && kv, kv_heads: custom && kv, head_dim: custom && kv, context: kv, batch: kv,
      precision: raw.method === "inference" && !served, format: served, engine: served, kv_precision: kv };
  }
  // A context as model cards write one: "8k", "128K" count thousands of 1,024 tokens (128k = 131,072).
  var TOKENS_PER_K = 1024n;
  // The reader's number as plain digits ("8,192", "8k" for a context); null where it is none.
  function plainNumber(text, group, inK) {
    var s = String(text == null ? "" : text).trim();
    var k = inK ? /^(\d+(?:\.\d+)?)\s*[kK]$/.exec(s) : null;
    if (k) return plainDecimal(mul(dec(k[1]), Q(TOKENS_PER_K)));
    if (!group || s.indexOf(group) < 0) return s;
    var sep = group.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    var grouped = new RegExp("^-?\\d{1,3}(?:" + sep + "\\d{3})+(?:\\.\\d+)?$");
    return grouped.test(s) ? s.split(group).join("") : null;
  }
  function plainDecimal(v) {  // a terminating fraction at or above zero as plain digits: 307.2, 131072
    var decimals = decimalDigits(v), digits = halfUp(v, decimals).toString().padStart(decimals + 1, "0");
    return decimals ? digits.slice(0, -decimals) + "." + digits.slice(-decimals) : digits;
  }
  function numberError(w, text, whole, max, tooLong) {
    var s = text === null ? "" : text;
    if (s === "") return w.ui("Enter a number.");
    if (/^-\d*\.?\d+$/.test(s)) return w.ui("Enter a number above zero.");
    if (!/^\d*\.?\d+$/.test(s)) return w.ui("Enter a number.");
    if (whole && !/^\d+$/.test(s)) return w.ui("Enter a whole number.");
    var v = dec(s);
    if (v.n === 0n) return w.ui("Enter a number above zero.");
    if (cmp(v, int(max)) > 0) return (tooLong || w.ui("At most {max}.")).replace("{max}", w.number(given(max)));
    return null;
  }
  // raw: the form's text by field name -> {state, errors}; a state is only given where nothing is wrong.
  function check(data, raw) {
    var w = new Words(data), on = fieldsOf(data, raw), errors = {}, state = {};
    var model = raw.model === "custom" ? null : findById(data.models, raw.model);
    state.model = raw.model === "custom" || model ? raw.model : data.defaults.model;
    state.method = raw.method === "inference" || findById(data.methods, raw.method) ? raw.method : data.defaults.method;
    state.precision = data.inference[raw.precision] ? raw.precision : data.defaults.precision;
    state.kv_precision = findById(data.kv_precisions, raw.kv_precision) ? raw.kv_precision : data.defaults.kv_precision;
    state.format = raw.format || data.defaults.format;
    state.engine = raw.engine || null;
    state.card = findById(data.cards, raw.card) ? raw.card : null;
    if (!model && state.model !== "custom") model = findById(data.models, state.model);
    var whole = { layers: true, kv_heads: true, head_dim: true, context: true, batch: true, params: false };
    Object.keys(data.limits).forEach(function (name) {
      if (!on[name]) return;
      var max = data.limits[name], tooLong = null;
      if (name === "context" && model && model.max_context) { max = model.max_context; tooLong = w.ui("The model reads at most {max} tokens."); }
      var plain = plainNumber(raw[name], data.number.group, name === "context");
      var problem = numberError(w, plain, whole[name], max, tooLong);
      if (problem) errors[name] = problem;
      else state[name] = whole[name] ? Number(plain) : plain;
    });
    return { state: Object.keys(errors).length ? null : state, errors: errors, fields: on };
  }

  // -- the page ------------------------------------------------------------------
  // The models of the language's data, before the custom option; the one a link asked for chosen once listed.
  function listModels(select, models, chosen) {
    var custom = select.querySelector("option[value='custom']");
    Array.prototype.slice.call(select.options).forEach(function (option) { if (option !== custom) option.remove(); });
    models.forEach(function (model) {
      var option = document.createElement("option");
      option.value = model.id;
      option.textContent = model.name;
      select.insertBefore(option, custom);
    });
    select.value = chosen;
  }

  // The models whose name or id holds what the reader typed, letters and digits alone compared ("qwen3 8b",
  // "Qwen3-8B" and "qwen38b" find Qwen3 8B); every model for nothing typed.
  function modelsMatching(models, text) {
    var plain = function (s) { return String(s).toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ""); };
    var asked = plain(text);
    return models.filter(function (m) { return plain(m.name).indexOf(asked) >= 0 || plain(m.id).indexOf(asked) >= 0; });
  }

  var FIELDS = ["model", "method", "precision", "format", "engine", "card", "kv_precision", "context", "batch", "params", "layers", "kv_heads", "head_dim"];
  function init(root) {
    // The page holds its own case; the language's data (data-source) and each real model's file (data-models)
    // are fetched (render/calculator/data.py). Until a file an answer needs is here, the page's answer stays.
    var page = JSON.parse(root.querySelector("script[type='application/json']").textContent), data = null;
    var form = root.querySelector("form"), out = root.querySelector(".calc-out"), status = root.querySelector(".calc-status"), link = root.querySelector(".calc-link");
    var modelPage = root.querySelector(".calc-page"), sourceUrl = new URL(root.getAttribute("data-source"), window.location.href);
    var query = new URLSearchParams(window.location.search), asked = false;
    FIELDS.forEach(function (name) { if (query.has(name) && form.elements[name]) { form.elements[name].value = query.get(name); asked = true; } });
    // A model's file is fetched once the reader asks for more than the page's own case (a change, a link that
    // asks, "More configurations"); from then on, a file on its way is said to be loading.
    var answerWanted = asked, changed = asked;
    var shown = out.innerHTML, lastAnswer = null, dataFailed = false, filesBase = root.getAttribute("data-models"), filesAsked = {}, filesFailed = {};
    function fetched(url) {
      return fetch(url).then(function (response) { if (!response.ok) throw new Error(response.status); return response.json(); });
    }
    // Whether the state's answer needs its real model's file and it is not here yet.
    function lacksModelFile(state) {
      var listed = state && findById(data.models, state.model);
      return !!listed && listed.shape === "layers" && !data.model_files[listed.id];
    }
    function askModelFile(model) {
      if (filesAsked[model]) return;
      filesAsked[model] = true;
      fetched(filesBase + "/" + encodeURIComponent(model) + ".json").then(function (held) { data.model_files[model] = held; update(false); },
        function () { filesFailed[model] = true; update(false); });
    }
    // The chosen real model's page, where the site has one and it is not this page.
    function showModelPage(model) {
      var listed = findById(data.models, model), paged = listed && listed.shape === "layers" && !listed.pasted && data.model_page;
      var url = paged && new URL(data.model_page.replace("{model}", encodeURIComponent(listed.id)), sourceUrl);
      var elsewhere = !!url && url.pathname !== window.location.pathname;
      modelPage.hidden = !elsewhere;
      if (elsewhere) { modelPage.href = url.href; modelPage.textContent = data.ui["More on {model}"].replace("{model}", listed.name); }
      else { modelPage.removeAttribute("href"); modelPage.textContent = ""; }
    }
    function show(html) { if (html !== shown) { out.innerHTML = html; shown = html; } }
    function update(byReader) {
      if (byReader) answerWanted = changed = true;
      if (!data) {
        var note = page.ui[dataFailed ? "The calculator's figures could not be loaded; reload the page to try again." : "Loading the calculator's figures…"];
        show(!byReader && !asked ? shown : '<p class="calc-note">' + e(note) + "</p>");
        if (byReader) status.textContent = note;
        return;
      }
      var raw = {};
      FIELDS.forEach(function (name) { if (form.elements[name]) raw[name] = form.elements[name].value; });
      var result = check(data, raw);
      FIELDS.forEach(function (name) {
        var box = root.querySelector("[data-field='" + name + "']"), input = form.elements[name];
        if (!box || !input) return;
        box.hidden = !(result.fields[name] === undefined || result.fields[name]);
        var message = result.errors[name] || "", slot = box.querySelector(".calc-error");
        slot.textContent = message;
        if (message) input.setAttribute("aria-invalid", "true"); else input.removeAttribute("aria-invalid");
      });
      var html, said, waiting = lacksModelFile(result.state), failed = waiting && filesFailed[result.state.model];
      if (waiting && answerWanted) askModelFile(result.state.model);
      if (waiting && answerWanted && !failed) out.setAttribute("aria-busy", "true"); else out.removeAttribute("aria-busy");
      if (waiting) {
        said = data.ui[failed ? "This model's figures could not be loaded; reload the page to try again." : "Loading this model's figures…"];
        html = changed ? '<p class="calc-note">' + e(said) + "</p>" : shown;
      } else if (result.state) {
        var found = lastAnswer = answer(data, result.state);
        html = answerHtml(found, data);
        said = summary(found, data);
      } else {
        html = '<p class="calc-note">' + e(data.ui["Correct the marked fields to see the answer."]) + "</p>";
        said = data.ui["Correct the marked fields to see the answer."];
      }
      show(html);
      var more = out.querySelector(".calc-more");
      if (more && found) fillMore(more, found, data);
      var params = new URLSearchParams();
      FIELDS.forEach(function (name) { if (raw[name] !== undefined && (result.fields[name] === undefined || result.fields[name])) params.set(name, raw[name]); });
      link.href = "?" + params.toString() + "#calculator";
      link.hidden = !!(findById(data.models, raw.model) || {}).pasted;  // a link cannot carry a pasted config
      showModelPage(result.state ? result.state.model : raw.model);
      if (byReader) {
        status.textContent = said;
        window.history.replaceState(null, "", "?" + params.toString() + window.location.hash);
      }
    }
    out.addEventListener("toggle", function (event) {
      if (!event.target.classList.contains("calc-more") || !data) return;
      if (lastAnswer) fillMore(event.target, lastAnswer, data);
      else if (!answerWanted) { answerWanted = true; update(false); }
    }, true);
    form.addEventListener("input", function () { update(true); });
    form.addEventListener("change", function () { update(true); });
    form.addEventListener("submit", function (event) { event.preventDefault(); update(true); });
    // The finder narrows the model list to the models it names, and picks the first where the chosen one is not
    // among them; the list is whole again once it is empty.
    var finder = root.querySelector(".calc-find input"), finderError = root.querySelector(".calc-find .calc-error");
    finder.addEventListener("input", function () {
      if (!data) return;
      var found = modelsMatching(data.models, finder.value), select = form.elements.model;
      finderError.textContent = found.length ? "" : data.ui["No model's name holds that."];
      if (found.length) finder.removeAttribute("aria-invalid"); else finder.setAttribute("aria-invalid", "true");
      if (!found.length) return;
      var kept = found.some(function (m) { return m.id === select.value; }) || (select.value === "custom" && !finder.value.trim());
      listModels(select, found, kept ? select.value : found[0].id);
    });
    // "Paste a config.json": assets/paste.js, beside the importer, sizes the config and lists its model.
    var paste = root.querySelector(".calc-size");
    if (paste) paste.addEventListener("click", function () {
      if (data) import(new URL(root.dataset.importer + "/../paste.js", location.href).href).then(function (m) {
        m.sizePasted(root, data, function (model, file) {
          data.models = data.models.filter(function (m) { return !m.pasted; }).concat([model]);
          data.model_files[model.id] = file;
          listModels(form.elements.model, data.models, model.id);
          if (form.elements.format) form.elements.format.value = model.native;
          update(true);
        });
      });
    });
    fetched(root.getAttribute("data-source")).then(function (found) {
      found.defaults = page.defaults;
      found.model_files = {};
      listModels(form.elements.model, found.models, form.elements.model.value || query.get("model") || "");
      data = found;
      update(false);
    }, function () { dataFailed = true; update(false); });
  }

  return { answer: answer, answerHtml: answerHtml, check: check, summary: summary, init: init, dec: dec };
})();
if (typeof module !== "undefined" && module.exports) module.exports = VramCalculator;
else document.querySelectorAll("[data-calc]").forEach(VramCalculator.init);
