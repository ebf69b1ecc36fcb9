"""``python -m functions``: the container's entry point, ``engram serve`` without loading the rest of the CLI."""

from functions.serve import serve

if __name__ == "__main__":
    serve(prog_name="python -m functions")
