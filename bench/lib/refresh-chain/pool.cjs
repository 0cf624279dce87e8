// Refresh tokens waiting to be used, shared by the connections of one autocannon run (its worker thread
// loads this module afresh). Rotation makes each refresh token single-use: a request takes one and its
// answer gives back the successor, so every connection follows its own chain of rotations.
const tokens = [];
let seeded = false;

module.exports = {
  /** The run's first call seeds the pool from the request context (autocannon's `initialContext`). */
  take(context) {
    if (!seeded) {
      tokens.push(...context.seed);
      seeded = true;
    }
    return tokens.pop();
  },
  give(token) {
    tokens.push(token);
  },
};
