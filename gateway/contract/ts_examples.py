"""Writes the document's own examples of every request body and answer as TypeScript values of their types.

    python3 gateway/contract/ts_examples.py DOCUMENT OUT.ts      (clients.sh; OUT.ts beside openapi.d.ts)

(field_forms.py reads the same examples with body_examples, to send them.)

For every operation with a request body, in `paths` and in `webhooks`: the examples of its
application/json content (`example`, and the `value` of each `examples` entry) and of the body
schema itself (`example`, `examples`). Each becomes `export const <name>: <type> = <example>;`,
where <type> is `components["schemas"]["<Schema>"]` when the body is a reference to a component
schema and the operation's own body type otherwise, so `tsc --strict` checks the example against
the type openapi-typescript made of the schema. The examples of every answer with JSON content
(`responses`, by status) are written the same way, typed as the answer's schema. A request body with
no example fails: there would be nothing to check it with.
"""

import json
import re
import sys

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def resolve(document, node):
    """Follows local references (`#/components/...`) until the node is not one."""
    while isinstance(node, dict) and "$ref" in node:
        target = document
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        node = target
    return node


def body_examples(document, media):
    """(label, value) of every example of a request body: the content's, then its schema's."""
    found = []
    if "example" in media:
        found.append(("example", media["example"]))
    for name, example in media.get("examples", {}).items():
        example = resolve(document, example)
        if "value" in example:
            found.append((name, example["value"]))
    schema = resolve(document, media.get("schema", {}))
    if "example" in schema:
        found.append(("schema_example", schema["example"]))
    found.extend((f"schema_example_{number}", value) for number, value in enumerate(schema.get("examples", []), 1))
    return found


def body_type(media, root, key, method):
    reference = media.get("schema", {}).get("$ref", "")
    if reference.startswith("#/components/schemas/"):
        return f'components["schemas"][{json.dumps(reference.rsplit("/", 1)[1])}]'
    return f'NonNullable<{root}[{json.dumps(key)}][{json.dumps(method)}]["requestBody"]>["content"]["application/json"]'


def main(document_path, out_path):
    with open(document_path) as file:
        document = json.load(file)
    lines = [
        f"// Written by gateway/contract/ts_examples.py from {document_path}: the document's own examples of",
        "// request bodies and answers, each typed as its schema. Generated; not to be edited.",
        'import type { components, paths, webhooks } from "./openapi";',
        "",
    ]
    missing, names = [], set()

    def write(examples, stem, where, media_type):
        """Each example as `export const <stem>_<label>: <media_type> = <example>;`."""
        for label, example in examples:
            name = re.sub(r"\W", "_", f"{stem}_{label}")
            assert name not in names, f"two examples named {name}"
            names.add(name)
            lines.append(f"// {where}")
            lines.append(f"export const {name}: {media_type} = {json.dumps(example, indent=2)};")
            lines.append("")

    for root in ("paths", "webhooks"):
        for key, item in document.get(root, {}).items():
            item = resolve(document, item)
            for method in METHODS:
                operation = item.get(method)
                if not operation:
                    continue
                stem = re.sub(r"\W", "_", operation.get("operationId") or f"{method}_{key}")
                for status, response in operation.get("responses", {}).items():
                    media = resolve(document, response).get("content", {}).get("application/json")
                    if media is None:
                        continue
                    where = f"{root} {key} {method} {status}"
                    assert "$ref" in media.get("schema", {}), f"{where}: an answer of a named schema"
                    write(body_examples(document, media), f"{stem}_{status}", where, body_type(media, root, key, method))
                if "requestBody" not in operation:
                    continue
                media = resolve(document, operation["requestBody"])["content"].get("application/json")
                where = f"{root} {key} {method}"
                if media is None:
                    missing.append(f"{where}: no application/json body")
                    continue
                examples = body_examples(document, media)
                if not examples:
                    missing.append(f"{where}: no example of its request body")
                write(examples, stem, where, body_type(media, root, key, method))
    for line in missing:
        print(f"ts_examples: {line}", file=sys.stderr)
    if missing or not names:
        sys.exit("ts_examples: every request body needs an example to compile")
    with open(out_path, "w") as file:
        file.write("\n".join(lines))
    print(f"ts_examples: {len(names)} examples of request bodies and answers written to {out_path}")


if __name__ == "__main__":
    main(*sys.argv[1:])
