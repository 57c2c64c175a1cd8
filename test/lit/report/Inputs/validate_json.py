"""Validates a JSON document against a JSON Schema (draft 7) and says which part fails.

usage: validate_json.py SCHEMA DOCUMENT
"""
import json
import sys

import jsonschema


def main():
    schema_path, document_path = sys.argv[1], sys.argv[2]
    with open(schema_path) as f:
        schema = json.load(f)
    with open(document_path) as f:
        document = json.load(f)
    validator = jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
    for error in errors:
        path = "/".join(str(p) for p in error.absolute_path)
        print(f"{document_path}: /{path}: {error.message}", file=sys.stderr)
    if errors:
        sys.exit(1)
    print(f"{document_path}: valid")


if __name__ == "__main__":
    main()
