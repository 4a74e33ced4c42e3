/** Who may talk to the resident guard: loopback binds, tokens, foreign Host and Origin. */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { bindRefusal, isLoopback, refusal } from "../lib/guard/resident/access.ts";

const s = suite("access");

for (const host of ["127.0.0.1", "127.8.0.1", "localhost", "::1", "[::1]", "::ffff:127.0.0.1"]) {
  s(`${host} is loopback`, () => assert.ok(isLoopback(host)));
}
for (const host of ["0.0.0.0", "::", "10.0.0.5", "guard.internal", "127.0.0.1.nip.io", "1270.0.0.1"]) {
  s(`${host} is not loopback`, () => assert.not.ok(isLoopback(host)));
}

s("a non-loopback bind without a token is refused in one line that says how to fix it", () => {
  const why = bindRefusal("0.0.0.0", undefined)!;
  assert.match(why, "Cannot serve on 0.0.0.0 without a token");
  assert.match(why, "FIABLE_GUARD_TOKEN");
  assert.not.match(why, "\n");
  assert.is(bindRefusal("0.0.0.0", "s3cret"), null);
  assert.is(bindRefusal("127.0.0.1", undefined), null);
});

const LOCAL = { boundHost: "127.0.0.1", path: "/hook/pre" };

s("local hooks pass; a foreign Host (DNS rebinding) or a web page's Origin is refused", () => {
  assert.is(refusal({ host: "127.0.0.1:8787" }, LOCAL), null);
  assert.is(refusal({ host: "localhost:8787" }, LOCAL), null);
  assert.is(refusal({ host: "[::1]:8787" }, LOCAL), null);
  assert.is(refusal({}, LOCAL), null);
  assert.is(refusal({ host: "evil.example:8787" }, LOCAL)?.status, 403);
  assert.is(refusal({ host: "127.0.0.1:8787", origin: "https://evil.example" }, LOCAL)?.status, 403);
  assert.is(refusal({ host: "127.0.0.1:8787", origin: "null" }, LOCAL)?.status, 403);
  assert.is(refusal({ host: "127.0.0.1:8787", origin: "http://127.0.0.1:4000" }, LOCAL), null);
});

s("with a token every route but /health needs it; any Host may then reach the bound address", () => {
  const wide = { boundHost: "0.0.0.0", token: "s3cret", path: "/hook/pre" };
  assert.is(refusal({ host: "10.0.0.5:8787" }, wide)?.status, 401);
  assert.is(refusal({ host: "10.0.0.5:8787", authorization: "Bearer nope" }, wide)?.status, 401);
  assert.is(refusal({ host: "10.0.0.5:8787", authorization: "Bearer s3cret" }, wide), null);
  assert.is(refusal({ host: "10.0.0.5:8787", authorization: "bearer s3cret" }, wide), null);
  assert.is(refusal({ host: "10.0.0.5:8787" }, { ...wide, path: "/health" }), null);
  assert.is(
    refusal({ host: "10.0.0.5", authorization: "Bearer s3cret", origin: "https://evil.example" }, wide)
      ?.status,
    403,
  );
  assert.match(refusal({}, wide)!.error, "Authorization: Bearer <token>");
});

s.run();
