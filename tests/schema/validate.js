#!/usr/bin/env node
/* validate.js — check YAML files against the JSON schemas in schemas/, with a
 * validator independent of planeval's own loader (ajv v6, draft-07; js-yaml v4).
 *
 * Usage:
 *   node validate.js --schema-dir DIR [--selftest] \
 *        [--scenario FILE...] [--catalog FILE...] [--bad FILE...]
 *
 * --selftest first runs the cases of cases.js (documents the schemas must
 * accept or refuse), one check each.
 * --scenario files must satisfy scenario.schema.json, --catalog files
 * catalog.schema.json; each is one check, printed as "ok FILE" or
 * "FAIL FILE" plus one indented line per problem. --bad files (tests/bad/)
 * should be rejected: one the schema accepts is printed as a NOTE, since some
 * rules (divisibility, "did you mean", duplicate plan names, ...) are beyond a
 * JSON schema; bad files never fail the run. The last line is
 * "N passed, N failed"; the exit status is 1 when any check failed, else 0.
 *
 * YAML is read as the loader reads it (docs/scenarios.md): YAML 1.2 core typing,
 * but integers are base 10 without leading zeros, floats follow the 1.2
 * pattern without .inf/.nan, hex and octal are plain strings (so a number key
 * rejects them), duplicate keys and several documents are errors, and an
 * integer key rejects a float literal such as 96.0 or 1e2 (checked through
 * the float literals' paths, since both parse to the same JS number).
 */
'use strict';

const fs = require('fs');
const path = require('path');

let yaml, Ajv;
try {
    yaml = require('js-yaml');
    Ajv = require('ajv');
} catch (e) {
    process.stderr.write(`validate.js: cannot load js-yaml or ajv (${e.message.split('\n')[0]})\n`);
    process.exit(77);
}
if (!/^6\./.test(require('ajv/package.json').version) || typeof yaml.loadAll !== 'function' || !yaml.types) {
    process.stderr.write('validate.js: needs ajv 6 and js-yaml 4 (Debian node-ajv, node-js-yaml)\n');
    process.exit(77);
}

/* ---------------------------------------------------------------- YAML */

class FloatLiteral {
    constructor(value, text) {
        this.value = value;
        this.text = text;
    }

    toString() {
        return this.text; /* a float used as a mapping key stays readable */
    }
}

const INT_RE = /^[-+]?(0|[1-9][0-9]*)$/;
const FLOAT_RE = /^[-+]?(\.[0-9]+|(0|[1-9][0-9]*)(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;

const strictInt = new yaml.Type('tag:yaml.org,2002:int', {
    kind: 'scalar',
    resolve: (data) => data !== null && INT_RE.test(data),
    construct: (data) => Number(data),
    predicate: (obj) => typeof obj === 'number' && Number.isInteger(obj),
    represent: (obj) => String(obj),
});

const strictFloat = new yaml.Type('tag:yaml.org,2002:float', {
    kind: 'scalar',
    resolve: (data) => data !== null && FLOAT_RE.test(data) && !INT_RE.test(data),
    construct: (data) => new FloatLiteral(Number(data), data),
    instanceOf: FloatLiteral,
    represent: (obj) => obj.text,
});

/* failsafe (str, seq, map) + null, bool as in the core schema + the strict
 * number types; no merge keys, timestamps or binary. */
const STRICT_SCHEMA = yaml.FAILSAFE_SCHEMA.extend({
    implicit: [yaml.types.null, yaml.types.bool, strictInt, strictFloat],
});

/* Replace FloatLiteral boxes by numbers; return the JSON pointers of floats. */
function unboxFloats(node, pointer, floats, seen) {
    if (node instanceof FloatLiteral) {
        floats.add(pointer);
        return node.value;
    }
    if (node === null || typeof node !== 'object') return node;
    if (seen.has(node)) return seen.get(node); /* aliases share objects */
    const esc = (k) => String(k).replace(/~/g, '~0').replace(/\//g, '~1');
    if (Array.isArray(node)) {
        const out = [];
        seen.set(node, out);
        node.forEach((v, i) => out.push(unboxFloats(v, `${pointer}/${i}`, floats, seen)));
        return out;
    }
    const out = {};
    seen.set(node, out);
    for (const k of Object.keys(node)) out[k] = unboxFloats(node[k], `${pointer}/${esc(k)}`, floats, seen);
    return out;
}

/* The loader's limits (docs/scenarios.md): at most 100,000 nodes after alias
 * expansion and 64 levels of nesting. Sizes are memoised per object, so a
 * "billion laughs" document is measured, not expanded. */
const MAX_NODES = 100000;
const MAX_DEPTH = 64;
function checkSize(root) {
    const size = new Map();
    const visit = (node, depth) => {
        if (depth > MAX_DEPTH) throw new Error(`nesting deeper than ${MAX_DEPTH} levels`);
        if (node === null || typeof node !== 'object') return 1;
        if (size.has(node)) return size.get(node);
        let n = 1;
        for (const v of Array.isArray(node) ? node : Object.values(node)) {
            n += visit(v, depth + 1);
            if (n > MAX_NODES) throw new Error(`more than ${MAX_NODES} nodes after alias expansion`);
        }
        size.set(node, n);
        return n;
    };
    visit(root, 1);
}

/* Parse one file; returns {data, floats} or throws with a readable message. */
function readYaml(file, text = fs.readFileSync(file, 'utf8')) {
    if (text.trim() === '') throw new Error('empty file');
    const docs = yaml.loadAll(text, null, { schema: STRICT_SCHEMA, filename: file });
    if (docs.length !== 1) throw new Error(`${docs.length} YAML documents; one expected`);
    checkSize(docs[0]);
    const floats = new Set();
    const data = unboxFloats(docs[0], '', floats, new Map());
    return { data, floats };
}

/* ---------------------------------------------------------------- schemas */

/* Mark every {"type": "integer"} subschema so a float literal there fails. */
function markIntegers(schema) {
    if (Array.isArray(schema)) return schema.forEach(markIntegers);
    if (schema === null || typeof schema !== 'object') return;
    if (schema.type === 'integer') schema.integerLiteral = true;
    for (const k of Object.keys(schema)) {
        if (k === 'properties' || k === 'definitions') {
            for (const v of Object.values(schema[k])) markIntegers(v);
        } else if (k !== 'enum' && k !== 'const') {
            markIntegers(schema[k]);
        }
    }
}

function makeValidators(schemaDir) {
    const ajv = new Ajv({ allErrors: true, jsonPointers: true, verbose: false });
    let current = null; /* the float pointers of the file being validated */
    ajv.addKeyword('integerLiteral', {
        errors: true,
        validate: function integerLiteral(enabled, data, parentSchema, dataPath) {
            /* a non-integral number already fails "type": "integer" */
            if (!enabled || !Number.isInteger(data) || current === null) return true;
            if (!current.has(dataPath)) return true;
            integerLiteral.errors = [{
                keyword: 'integerLiteral',
                message: 'should be an integer literal (e.g. 96, not 96.0 or 1e2)',
                params: {},
            }];
            return false;
        },
    });
    const load = (name) => {
        const schema = JSON.parse(fs.readFileSync(path.join(schemaDir, name), 'utf8'));
        markIntegers(schema);
        return schema;
    };
    ajv.addSchema(load('scenario.schema.json'), 'scenario.schema.json');
    ajv.addSchema(load('catalog.schema.json'), 'catalog.schema.json');
    const wrap = (key) => {
        const v = ajv.getSchema(key);
        return (data, floats) => {
            current = floats;
            try {
                return v(data) ? [] : v.errors;
            } finally {
                current = null;
            }
        };
    };
    return { scenario: wrap('scenario.schema.json'), catalog: wrap('catalog.schema.json') };
}

/* Short, deduplicated messages. A combinator's own error (oneOf, anyOf,
 * if/then, allOf: "should match ...") is dropped when a more specific error
 * was reported at the same place or below it. */
const GENERIC = ['oneOf', 'anyOf', 'if', 'allOf'];
function describe(errors) {
    const lines = [];
    const seen = new Set();
    const specific = errors.filter((e) => !GENERIC.includes(e.keyword)).map((e) => e.dataPath);
    const covered = (p) => specific.some((q) => q === p || q.startsWith(`${p}/`));
    for (const e of errors) {
        if (GENERIC.includes(e.keyword) && covered(e.dataPath)) continue;
        let msg = e.message;
        if (e.keyword === 'additionalProperties') msg = `unknown key "${e.params.additionalProperty}"`;
        if (e.keyword === 'enum') msg += `: ${e.params.allowedValues.join(', ')}`;
        if (e.keyword === 'const') msg += ` "${e.params.allowedValue}"`;
        const line = `${e.dataPath || '/'}: ${msg}`;
        if (!seen.has(line)) {
            seen.add(line);
            lines.push(line);
        }
    }
    return lines;
}

/* ---------------------------------------------------------------- main */

function main(argv) {
    let schemaDir = null;
    let selftest = false;
    const groups = { scenario: [], catalog: [], bad: [] };
    let mode = null;
    for (let i = 0; i < argv.length; i++) {
        const a = argv[i];
        if (a === '--schema-dir') schemaDir = argv[++i];
        else if (a === '--selftest') selftest = true;
        else if (a === '--scenario') mode = 'scenario';
        else if (a === '--catalog') mode = 'catalog';
        else if (a === '--bad') mode = 'bad';
        else if (mode) groups[mode].push(a);
        else {
            process.stderr.write(`validate.js: unexpected argument ${a}\n`);
            return 2;
        }
    }
    if (!schemaDir) {
        process.stderr.write('usage: validate.js --schema-dir DIR [--selftest] [--scenario F...] [--catalog F...] [--bad F...]\n');
        return 2;
    }
    let validators;
    try {
        validators = makeValidators(schemaDir);
    } catch (e) {
        process.stdout.write(`FAIL schemas: ${e.message}\n0 passed, 1 failed\n`);
        return 1;
    }
    let passed = 0;
    let failed = 0;
    if (selftest) {
        for (const c of require('./cases.js')) {
            const kind = c.kind || 'scenario';
            let problems;
            try {
                const { data, floats } = readYaml(`<${c.name}>`, c.yaml);
                problems = describe(validators[kind](data, floats));
            } catch (e) {
                problems = [`not loadable: ${e.message.split('\n')[0]}`];
            }
            const ok = (problems.length === 0) === c.valid;
            if (ok) {
                passed++;
                process.stdout.write(`ok   selftest: ${c.name}\n`);
            } else {
                failed++;
                process.stdout.write(`FAIL selftest: ${c.name}: expected ${c.valid ? 'valid' : 'refused'}\n`);
                for (const p of problems) process.stdout.write(`       ${p}\n`);
            }
        }
    }
    for (const kind of ['catalog', 'scenario']) {
        for (const file of groups[kind]) {
            let problems;
            try {
                const { data, floats } = readYaml(file);
                problems = describe(validators[kind](data, floats));
            } catch (e) {
                problems = [`not loadable: ${e.message.split('\n')[0]}`];
            }
            if (problems.length === 0) {
                passed++;
                process.stdout.write(`ok   ${file}\n`);
            } else {
                failed++;
                process.stdout.write(`FAIL ${file}\n`);
                for (const p of problems) process.stdout.write(`       ${p}\n`);
            }
        }
    }
    let rejected = 0;
    let accepted = 0;
    let unparsed = 0;
    for (const file of groups.bad) {
        let data;
        let floats;
        try {
            ({ data, floats } = readYaml(file));
        } catch (e) {
            unparsed++;
            continue;
        }
        if (validators.scenario(data, floats).length > 0) {
            rejected++;
        } else {
            accepted++;
            process.stdout.write(`NOTE ${file}: accepted by the schema (a rule beyond JSON schema?)\n`);
        }
    }
    if (groups.bad.length > 0) {
        process.stdout.write(`tests/bad: ${rejected} rejected by the schema, ${accepted} accepted (notes above), ` +
            `${unparsed} refused by the YAML reader\n`);
    }
    process.stdout.write(`${passed} passed, ${failed} failed\n`);
    return failed > 0 ? 1 : 0;
}

process.exit(main(process.argv.slice(2)));
