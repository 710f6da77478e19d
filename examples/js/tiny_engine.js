// The smallest JavaScript engine tapecheck can check: four ops, a tape, and the mapping to
// tapecheck's ops (the twin of examples/python/tiny_engine.py).
//
//     tapecheck run --engine-cmd "node examples/js/tiny_engine.js" --carrier rational
//
// Values are flat arrays: Fractions on the rational carrier, numbers on double. Every op keeps
// the step that sends its cotangent to its arguments; the backward pass runs them in reverse.

import { Engine, Fraction, Unsupported, serve } from "../../adapters/js/tapecheck_engine.js";

/** The four operations the engine needs, on one carrier's values (JavaScript has no overloading). */
const ARITHMETIC = {
  rational: {
    zero: () => new Fraction(0),
    add: (a, b) => a.add(b),
    mul: (a, b) => a.mul(b),
    positive: (a) => a.sign() > 0,
  },
  double: { zero: () => 0, add: (a, b) => a + b, mul: (a, b) => a * b, positive: (a) => a > 0 },
};

/** A tensor: flat values, its arguments, and the step from its cotangent to theirs. */
class Var {
  constructor(values, args = [], step = null) {
    Object.assign(this, { values, args, step });
  }
}

class TinyEngine extends Engine {
  profile = { name: "tiny-js", carriers: ["rational", "double"], ops: ["add", "mul", "relu", "sum"],
              single_output: "support", zero_sign: "unspecified" };
  policy = "values";

  get num() {
    return ARITHMETIC[this.carrier];
  }

  leaf(carrier, shape, values) {
    return new Var([...values]);
  }

  apply(op, args, attrs, shape, data) {
    const n = this.num;
    const [a, b] = args;
    switch (op) {
      case "add":
        return new Var(a.values.map((x, i) => n.add(x, b.values[i])), args, (g) => [g, g]);
      case "mul":
        return new Var(a.values.map((x, i) => n.mul(x, b.values[i])), args,
                       (g) => [g.map((gi, i) => n.mul(gi, b.values[i])), g.map((gi, i) => n.mul(gi, a.values[i]))]);
      case "relu":
        return new Var(a.values.map((x) => (n.positive(x) ? x : n.zero())), args,
                       (g) => [g.map((gi, i) => (n.positive(a.values[i]) ? gi : n.zero()))]);
      case "sum":
        return new Var([a.values.reduce(n.add, n.zero())], args, (g) => [a.values.map(() => g[0])]);
    }
    throw new Unsupported(op);
  }

  values(tensor) {
    return tensor.values;
  }

  backward(tensors, seeds) {
    const n = this.num;
    const grads = new Map(tensors.map((t) => [t, t.values.map(() => n.zero())]));
    const accumulate = (t, contribution) => grads.set(t, grads.get(t).map((g, i) => n.add(g, contribution[i])));
    for (const [p, seed] of seeds) accumulate(tensors[p], seed);
    for (const t of [...tensors].reverse()) { // positions come in creation order: reverse is a valid order
      if (t.step === null) continue;
      t.step(grads.get(t)).forEach((contribution, k) => accumulate(t.args[k], contribution));
    }
    return tensors.map((t) => grads.get(t));
  }
}

serve(new TinyEngine());
