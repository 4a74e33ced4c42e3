/** Top-level fields of raw hook text, read without parsing it (lib/guard/engine/raw_json.ts). */
import { suite } from "uvu";
import * as assert from "uvu/assert";
import { topLevelString } from "../lib/guard/engine/raw_json.ts";

const s = suite("raw_json");

const long = "x".repeat(5000);
const ROWS: [string, string, string | undefined][] = [
  ["plain", '{"session_id":"abc","a":1}', "abc"],
  ["spaces", ' { "a" : [1, {"b": "}"}] ,\n "session_id" : "s-1" }', "s-1"],
  ["an escaped quote", '{"session_id":"a\\"b"}', 'a"b'],
  ["a backslash before the closing quote", '{"session_id":"a\\\\"}', "a\\"],
  ["a unicode escape", '{"session_id":"\\u00e9t\\u00e9"}', "été"],
  ["5,000 characters", `{"session_id":"${long}"}`, long],
  ["after a nested one", '{"tool_input":{"session_id":"nested"},"session_id":"top"}', "top"],
  ["only nested", '{"tool_input":{"session_id":"nested"}}', undefined],
  ["inside a string value", '{"text":"\\"session_id\\":\\"fake\\"","session_id":"real"}', "real"],
  ["a key spelled with an escape", '{"session\\u005fid":"escaped-key"}', "escaped-key"],
  ["not a string", '{"session_id":42}', undefined],
  ["cut short before it", '{"a":"b","sess', undefined],
  ["cut short inside it", '{"session_id":"abc', undefined],
  ["the first of two", '{"session_id":"one","session_id":"two"}', "one"],
  ["not an object", '["session_id","x"]', undefined],
  ["empty", "", undefined],
];
for (const [name, text, expected] of ROWS) {
  s(`${name} → ${JSON.stringify(expected)?.slice(0, 20)}`, () => {
    assert.is(topLevelString(text, "session_id"), expected);
  });
}

s.run();
