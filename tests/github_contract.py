"""GitHub's REST contract, as the test suite holds the fake GitHub and the bot to it.

The judge is GitHub's own REST description: `generated/api.github.com.json` of the npm
package `@octokit/openapi` (GitHub's `rest-api-description` with Octokit's extensions,
MIT licensed). The operations the bot calls and the fake serves, with every component
they reference, are vendored in `tests/data/github-rest-api.json`, pinned to the
package version in its `x-vendored` member; regenerate it (after adding an operation
id to `OPERATIONS`, say for the Checks API) with

    python tests/github_contract.py --regenerate             # npm pack, pinned VERSION
    python tests/github_contract.py --regenerate --source FILE  # an api.github.com.json

`Contract.check_request` judges a request the bot sends: the operation exists for the
method and path, path and query parameters are declared and valid, the JSON body is
valid, and the headers pin the API version and media type
(`X-GitHub-Api-Version: 2022-11-28`, `Accept: application/vnd.github+json`).
`Contract.check_response` judges an answer of the fake: the status is declared for the
operation (or is one GitHub documents for every request: 401, 404, rate-limit 403/429,
5xx, each with GitHub's error body), the body validates against the declared schema
(required members present; a null only where the description says `nullable`), a 204
has no body, and a 302 names its `Location`.

Schemas are OpenAPI 3.0 (`nullable`); they are turned into JSON Schema draft 4 once
(`nullable: true` becomes "or null") and validated with `jsonschema`.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import re
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import jsonschema
import referencing
import referencing.jsonschema

SPEC_PATH = Path(__file__).resolve().parent / "data" / "github-rest-api.json"
PACKAGE = "@octokit/openapi"
VERSION = "23.0.2"
SOURCE_FILE = "generated/api.github.com.json"
API_VERSION = "2022-11-28"
MEDIA_TYPE = "application/vnd.github+json"
GITHUB_HEADERS = {"Accept": MEDIA_TYPE, "X-GitHub-Api-Version": API_VERSION}  # for raw clients

# The operations vendored: every one the bot calls or the fake serves (the Checks API for
# the check run, the Git Data API for the "Apply safe fixes" commit). Add an id here and
# regenerate to serve a new endpoint.
OPERATIONS = (
    "apps/get-authenticated",
    "apps/create-installation-access-token",
    "apps/get-repo-installation",
    "users/get-authenticated",
    "orgs/check-membership-for-user",
    "orgs/check-public-membership-for-user",
    "teams/get-membership-for-user-in-org",
    "repos/get",
    "repos/get-collaborator-permission-level",
    "repos/get-commit",
    "repos/compare-commits",
    "repos/get-content",
    "repos/create-commit-status",
    "repos/list-commit-statuses-for-ref",
    "repos/get-combined-status-for-ref",
    "git/get-tree",
    "git/get-blob",
    "git/create-blob",
    "git/create-tree",
    "git/create-commit",
    "git/get-commit",
    "git/get-ref",
    "git/update-ref",
    "pulls/get",
    "pulls/list-files",
    "pulls/list-commits",
    "pulls/list-review-comments",
    "pulls/create-review-comment",
    "pulls/get-review-comment",
    "pulls/update-review-comment",
    "pulls/delete-review-comment",
    "pulls/create-reply-for-review-comment",
    "pulls/list-reviews",
    "pulls/get-review",
    "pulls/create-review",
    "pulls/update-review",
    "pulls/dismiss-review",
    "pulls/list-comments-for-review",
    "issues/list-comments",
    "issues/create-comment",
    "issues/get-comment",
    "issues/update-comment",
    "issues/delete-comment",
    "checks/list-for-ref",
    "checks/create",
    "checks/get",
    "checks/update",
    "checks/list-annotations",
)

# Answers GitHub documents for any request, whether or not an operation lists them:
# 401 (no or bad credentials), 404 (a resource that does not exist or that the
# credential cannot see), 403/429 (rate limits) and server errors.
UNIVERSAL = frozenset({401, 403, 404, 429, 500, 502, 503, 504})
_ERROR_BODY = {
    "type": "object",
    "required": ["message"],
    "properties": {
        "message": {"type": "string"},
        "documentation_url": {"type": "string"},
        "status": {"type": "string"},
    },
}
# Where GitHub's answers differ from its own description, as reported upstream: the
# contract follows GitHub (the fake must produce these nulls; the bot must read them).
# (schema, property path, why)
KNOWN_INACCURACIES = (
    (
        "pull-request-review-comment",
        ("line",),
        "an outdated review comment has `line: null` (its code moved after a push)",
    ),
    (
        "pull-request-review-comment",
        ("position",),
        "github/rest-api-description#1901, #5568: `position` is null on outdated comments",
    ),
    (
        "review-comment",
        ("line",),
        "an outdated review comment has `line: null` (its code moved after a push)",
    ),
    (
        "pull-request",
        ("head", "repo"),
        "github/rest-api-description#424, #1811: `head.repo` is null once the fork is deleted",
    ),
)
# Answers GitHub gives that the description does not declare for the operation; the
# contract follows GitHub: (operation id, status, why)
UNDECLARED = (
    (
        "checks/create",
        422,
        "Validation Failed: more than 50 annotations in one request, a conclusion missing"
        " for a completed run, an output over its limits",
    ),
    ("checks/update", 422, "Validation Failed, as for checks/create"),
)
_BASE = "urn:github-rest"
# keys that are OpenAPI annotations, not JSON Schema assertions
_ANNOTATIONS = frozenset(
    {"nullable", "example", "examples", "discriminator", "xml", "externalDocs", "deprecated"}
    | {"readOnly", "writeOnly", "x-github", "x-octokit"}
)
_SUBSCHEMA_LISTS = ("allOf", "anyOf", "oneOf")
_SUBSCHEMA = ("items", "not", "additionalProperties")


_UNDECLARED = frozenset((op, status) for op, status, _ in UNDECLARED)


class ContractError(AssertionError):
    """A request or an answer GitHub's REST description rejects."""


# --------------------------------------------------------------------------- schemas


def to_json_schema(node: Any) -> Any:
    """An OpenAPI 3.0 schema as JSON Schema draft 4: `nullable: true` allows null,
    references point into the vendored document, annotations are dropped."""
    if not isinstance(node, dict):
        return node
    if "$ref" in node:  # siblings of $ref are ignored in OpenAPI 3.0
        return {"$ref": _BASE + str(node["$ref"])}
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _ANNOTATIONS or key.startswith("x-"):
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: to_json_schema(sub) for name, sub in value.items()}
        elif key in _SUBSCHEMA_LISTS and isinstance(value, list):
            out[key] = [to_json_schema(sub) for sub in value]
        elif key in _SUBSCHEMA and isinstance(value, dict):
            out[key] = to_json_schema(value)
        else:
            out[key] = value
    if node.get("nullable") is True:
        if "enum" in out and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
        return {"anyOf": [out, {"type": "null"}]}
    return out


@dataclass(frozen=True)
class Operation:
    id: str
    method: str  # upper case
    template: str
    spec: Mapping[str, Any]
    literal: int  # characters of the template outside parameters (more: more specific)
    regex: re.Pattern[str]

    def parameters(self, contract: Contract, where: str) -> dict[str, Mapping[str, Any]]:
        out: dict[str, Mapping[str, Any]] = {}
        for p in self.spec.get("parameters", []):
            p = contract.resolve(p)
            if p.get("in") == where:
                out[str(p["name"])] = p
        return out


def _template_regex(template: str) -> tuple[re.Pattern[str], int]:
    parts, literal, pos = [], 0, 0
    for m in re.finditer(r"\{([^}]+)\}", template):
        text = template[pos : m.start()]
        parts.append(re.escape(text))
        literal += len(text)
        name = m.group(1)
        # a file path spans segments, and so does a git reference (`heads/feature`, as
        # GitHub documents it for /git/ref/{ref} and /git/refs/{ref}); every other
        # parameter is one segment (percent-encoded)
        spans = name == "path" or (name == "ref" and "/git/" in template)
        parts.append(f"(?P<{name}>.+)" if spans else f"(?P<{name}>[^/]+?)")
        pos = m.end()
    parts.append(re.escape(template[pos:]))
    literal += len(template) - pos
    return re.compile("".join(parts)), literal


class Contract:
    """The vendored REST description, indexed by method and path."""

    def __init__(self, document: Mapping[str, Any]) -> None:
        document = _with_known_inaccuracies(document)
        self.document = document
        self.operations: list[Operation] = []
        for template, item in document["paths"].items():
            for method, spec in item.items():
                if isinstance(spec, dict) and "operationId" in spec:
                    regex, literal = _template_regex(template)
                    self.operations.append(
                        Operation(
                            spec["operationId"], method.upper(), template, spec, literal, regex
                        )
                    )
        converted = {
            "components": {
                kind: {name: to_json_schema(s) for name, s in table.items()}
                if kind == "schemas"
                else table
                for kind, table in document.get("components", {}).items()
            }
        }
        resource = referencing.Resource.from_contents(
            converted, default_specification=referencing.jsonschema.DRAFT4
        )
        self._registry: referencing.Registry[Any] = referencing.Registry().with_resource(
            _BASE, resource
        )
        self._validators: dict[str, jsonschema.protocols.Validator] = {}

    @classmethod
    @functools.cache
    def load(cls, path: Path = SPEC_PATH) -> Contract:
        return cls(json.loads(path.read_text(encoding="utf-8")))

    @property
    def source(self) -> Mapping[str, Any]:
        return dict(self.document.get("x-vendored", {}))

    # ------------------------------------------------------------------ lookups

    def resolve(self, node: Any) -> Any:
        """`node` with a local `$ref` followed (parameters, responses, headers)."""
        while isinstance(node, dict) and "$ref" in node:
            target: Any = self.document
            for part in str(node["$ref"]).removeprefix("#/").split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            node = target
        return node

    def operation(self, method: str, path: str) -> tuple[Operation, dict[str, str]] | None:
        """The operation serving `method` `path` (percent-encoded, no query) and its path
        parameters (decoded); the most specific template wins."""
        best: tuple[Operation, dict[str, str]] | None = None
        for op in self.operations:
            if op.method != method.upper():
                continue
            m = op.regex.fullmatch(path)
            if m and (best is None or op.literal > best[0].literal):
                best = (op, {k: unquote(v) for k, v in m.groupdict().items()})
        return best

    def by_id(self, operation_id: str) -> Operation:
        for op in self.operations:
            if op.id == operation_id:
                return op
        raise KeyError(operation_id)

    def validator(self, key: str, schema: Any) -> jsonschema.protocols.Validator:
        hit = self._validators.get(key)
        if hit is None:
            hit = jsonschema.Draft4Validator(to_json_schema(schema), registry=self._registry)
            self._validators[key] = hit
        return hit

    # ------------------------------------------------------------------ judging

    def _schema_errors(self, key: str, schema: Any, value: Any, what: str) -> list[str]:
        errors = sorted(
            self.validator(key, schema).iter_errors(value), key=lambda e: list(e.absolute_path)
        )
        out = []
        for e in errors[:5]:
            deepest = e
            while deepest.context:  # oneOf/anyOf: the branch that came closest
                deepest = jsonschema.exceptions.best_match(deepest.context) or deepest
                if deepest.context is None:
                    break
            where = "/".join(str(p) for p in deepest.absolute_path) or "(root)"
            out.append(f"{what} at {where}: {_short(deepest.message)}")
        if len(errors) > 5:
            out.append(f"{what}: {len(errors) - 5} more error(s)")
        return out

    def check_request(
        self,
        method: str,
        path: str,
        query: Mapping[str, str | list[str]],
        body: Any,
        headers: Mapping[str, str],
    ) -> list[str]:
        """What GitHub's description rejects in a request (empty: nothing)."""
        found = self.operation(method, path)
        if found is None:
            return [f"{method} {path}: no such operation in GitHub's REST description"]
        op, params = found
        where = f"{method} {path} ({op.id})"
        problems = []
        lowered = {k.lower(): v for k, v in headers.items()}
        if lowered.get("x-github-api-version") != API_VERSION:
            problems.append(
                f"{where}: X-GitHub-Api-Version is {lowered.get('x-github-api-version')!r},"
                f" not {API_VERSION!r}"
            )
        accept = [a.split(";")[0].strip() for a in lowered.get("accept", "").split(",")]
        if accept != [MEDIA_TYPE]:
            problems.append(
                f"{where}: Accept is {lowered.get('accept')!r}, not {MEDIA_TYPE!r}"
                " (preview media types are retired)"
            )
        declared_path = op.parameters(self, "path")
        for name, value in params.items():
            spec = declared_path.get(name)
            if spec is None:
                problems.append(f"{where}: undeclared path parameter {name}")
                continue
            problems += self._parameter(op, spec, value, where, "path")
        declared_query = op.parameters(self, "query")
        for name, value in query.items():
            spec = declared_query.get(name)
            if spec is None:
                problems.append(f"{where}: unknown query parameter {name!r}")
                continue
            for v in value if isinstance(value, list) else [value]:
                problems += self._parameter(op, spec, v, where, "query")
        for name, spec in declared_query.items():
            if spec.get("required") and name not in query:
                problems.append(f"{where}: missing required query parameter {name!r}")
        request_body = self.resolve(op.spec.get("requestBody"))
        if request_body is None:
            if body is not None:
                problems.append(f"{where}: this operation takes no request body")
        elif body is None:
            if request_body.get("required"):
                problems.append(f"{where}: the request body is required")
        else:
            schema = (request_body.get("content") or {}).get("application/json", {}).get("schema")
            if schema is None:
                problems.append(f"{where}: this operation takes no JSON body")
            else:
                problems += self._schema_errors(f"{op.id} request", schema, body, where + " body")
        return problems

    def _parameter(
        self, op: Operation, spec: Mapping[str, Any], raw: str, where: str, kind: str
    ) -> list[str]:
        schema = spec.get("schema") or {}
        value: Any = raw
        kinds = schema.get("type")
        if kinds == "integer":
            if not re.fullmatch(r"-?\d+", raw):
                return [f"{where}: {kind} parameter {spec['name']}={raw!r} is not an integer"]
            value = int(raw)
        elif kinds == "boolean":
            if raw not in ("true", "false"):
                return [f"{where}: {kind} parameter {spec['name']}={raw!r} is not a boolean"]
            value = raw == "true"
        return self._schema_errors(
            f"{op.id} {kind} {spec['name']}", schema, value, f"{where} {kind} parameter"
        )

    def check_response(
        self,
        method: str,
        path: str,
        status: int,
        body: Any,
        headers: Mapping[str, str],
        *,
        has_body: bool,
    ) -> list[str]:
        """What GitHub's description rejects in an answer to `method` `path`."""
        found = self.operation(method, path)
        if found is None:
            if status in (401, 404):
                return self._schema_errors("error", _ERROR_BODY, body, f"{method} {path} {status}")
            return [f"{method} {path}: answered {status} for an operation GitHub does not have"]
        op, _ = found
        where = f"{method} {path} ({op.id}) answered {status}"
        responses = op.spec.get("responses", {})
        declared = self.resolve(responses.get(str(status)))
        if declared is None:
            if status not in UNIVERSAL and (op.id, status) not in _UNDECLARED:
                listed = ", ".join(sorted(responses))
                return [f"{where}: status not declared for this operation (declared: {listed})"]
            return self._schema_errors("error", _ERROR_BODY, body, where)
        problems = []
        content = declared.get("content") or {}
        schema = None
        for media in ("application/json", "application/scim+json", MEDIA_TYPE):
            if media in content:
                schema = content[media].get("schema")
                break
        if status >= 400 and not content:  # described without a body: GitHub's error body
            if has_body:
                problems += self._schema_errors("error", _ERROR_BODY, body, where)
        elif status == 204 or not content:
            if has_body:
                problems.append(f"{where}: GitHub sends no body here")
        elif schema is not None:
            if not has_body:
                problems.append(f"{where}: GitHub sends a body here")
            else:
                problems += self._schema_errors(f"{op.id} {status}", schema, body, where)
        lowered = {k.lower() for k in headers}
        for name in declared.get("headers") or {}:
            if name.lower() == "location" and 300 <= status < 400 and "location" not in lowered:
                problems.append(f"{where}: no Location header")
        return problems


def _with_known_inaccuracies(document: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of `document` with `KNOWN_INACCURACIES` made nullable."""
    out: dict[str, Any] = json.loads(json.dumps(document))
    schemas = out.get("components", {}).get("schemas", {})
    for name, path, _ in KNOWN_INACCURACIES:
        if name not in schemas:
            continue
        parent = schemas[name]
        for part in path[:-1]:
            parent = parent["properties"][part]
        node = parent["properties"][path[-1]]
        parent["properties"][path[-1]] = (
            {"anyOf": [node], "nullable": True} if "$ref" in node else {**node, "nullable": True}
        )
    return out


def _short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


# --------------------------------------------------------------------------- vendoring


def _refs(node: Any) -> Iterable[str]:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            yield ref
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def _strip(node: Any, parent: str = "") -> Any:
    """The document without examples (they are large and judge nothing); a property
    that happens to be named `example` stays."""
    if isinstance(node, dict):
        return {
            k: _strip(v, k)
            for k, v in node.items()
            if parent == "properties" or k not in ("example", "examples")
        }
    if isinstance(node, list):
        return [_strip(v) for v in node]
    return node


def subset(
    document: Mapping[str, Any], operations: Iterable[str], source: Mapping[str, Any]
) -> Any:
    """The paths serving `operations` and every component they reference, transitively."""
    wanted = set(operations)
    paths: dict[str, dict[str, Any]] = {}
    for template, item in document["paths"].items():
        for method, spec in item.items():
            if isinstance(spec, dict) and spec.get("operationId") in wanted:
                paths.setdefault(template, {})[method] = spec
                wanted.discard(spec["operationId"])
    if wanted:
        raise SystemExit(f"not in the description: {', '.join(sorted(wanted))}")
    components: dict[str, dict[str, Any]] = {}
    todo = list(_refs(paths))
    while todo:
        ref = todo.pop()
        _, kind, name = ref.removeprefix("#/").split("/", 2)
        if name in components.get(kind, {}):
            continue
        node = document["components"][kind][name]
        components.setdefault(kind, {})[name] = node
        todo.extend(_refs(node))
    out = {
        "openapi": document["openapi"],
        "info": document["info"],
        "x-vendored": dict(source),
        "paths": dict(sorted(paths.items())),
        "components": {k: dict(sorted(v.items())) for k, v in sorted(components.items())},
    }
    return _strip(out)


def _npm_source(version: str, workdir: Path) -> Path:
    subprocess.run(["npm", "pack", f"{PACKAGE}@{version}", "--silent"], cwd=workdir, check=True)
    (tgz,) = workdir.glob("*.tgz")
    with tarfile.open(tgz) as tar:
        member = tar.getmember(f"package/{SOURCE_FILE}")
        tar.extract(member, workdir, filter="data")
    return workdir / "package" / SOURCE_FILE


def regenerate(source: Path | None, version: str = VERSION) -> Path:
    with tempfile.TemporaryDirectory() as tmp:
        path = source or _npm_source(version, Path(tmp))
        raw = path.read_bytes()
        document = json.loads(raw)
        meta = {
            "package": PACKAGE,
            "version": document["info"].get("version", version),
            "file": SOURCE_FILE,
            "sha256": hashlib.sha256(raw).hexdigest(),
            "operations": len(OPERATIONS),
            "regenerate": "python tests/github_contract.py --regenerate",
        }
        data = subset(document, OPERATIONS, meta)
    SPEC_PATH.write_text(json.dumps(data, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    return SPEC_PATH


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--regenerate", action="store_true", help="rewrite the vendored subset")
    parser.add_argument("--source", type=Path, help="an api.github.com.json (else: npm pack)")
    parser.add_argument("--version", default=VERSION, help=f"{PACKAGE} version (npm)")
    args = parser.parse_args(argv)
    if not args.regenerate:
        contract = Contract.load()
        print(f"{len(contract.operations)} operations from {contract.source}")
        return 0
    path = regenerate(args.source, args.version)
    print(f"wrote {path} ({path.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
