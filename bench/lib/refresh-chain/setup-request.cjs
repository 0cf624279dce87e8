// autocannon `setupRequest`: a refresh_token grant for the next token of the pool. With the pool empty
// (an answer without a successor broke a chain) it returns null and autocannon's run fails loudly.
const pool = require("./pool.cjs");

module.exports = function setupRequest(request, context) {
  const token = pool.take(context);
  if (!token) return null;
  return { ...request, body: `${context.formPrefix}${encodeURIComponent(token)}` };
};
