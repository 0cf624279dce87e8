// autocannon `onResponse`: a successful refresh returns its rotated successor to the pool.
const pool = require("./pool.cjs");

module.exports = function onResponse(status, body) {
  if (status === 200) pool.give(JSON.parse(body).refresh_token);
};
