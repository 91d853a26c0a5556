#!/bin/sh
# vendor.sh fetches the Cytoscape.js files the web interface embeds
# (static/vendor/) from the npm registry, at the pinned version.
# Run it from anywhere: sh smg/serve/web/vendor.sh
set -eu
VERSION=3.35.0
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --silent "cytoscape@$VERSION" >/dev/null)
tar -xzf "$tmp/cytoscape-$VERSION.tgz" -C "$tmp" package/dist/cytoscape.min.js package/LICENSE
mkdir -p "$here/static/vendor"
cp "$tmp/package/dist/cytoscape.min.js" "$here/static/vendor/cytoscape.min.js"
cp "$tmp/package/LICENSE" "$here/static/vendor/LICENSE"
echo "cytoscape $VERSION vendored into $here/static/vendor"
