"""Pages -> site/: routing, assembling every output file, writing them safely."""
