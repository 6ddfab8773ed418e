#!/usr/bin/env bash
# make_cert.sh DIR: a throwaway P-256 CA and a leaf for 127.0.0.1 and localhost signed by it,
# for the TLS benchmark rows, where understudy and nginx serve the same certificate.
# Writes DIR/ca.pem, DIR/leaf.pem (the leaf, then the CA: the chain) and DIR/leaf-key.pem.
set -euo pipefail
dir="$1"
mkdir -p "$dir"
cd "$dir"
openssl ecparam -name prime256v1 -genkey -noout -out ca-key.pem 2>/dev/null
openssl req -x509 -new -key ca-key.pem -sha256 -days 2 -subj "/CN=Understudy bench CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" -out ca.pem 2>/dev/null
openssl ecparam -name prime256v1 -genkey -noout -out leaf-key.pem 2>/dev/null
openssl req -new -key leaf-key.pem -subj "/CN=127.0.0.1" -out leaf.csr 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n' >leaf.ext
openssl x509 -req -in leaf.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 2 -sha256 -extfile leaf.ext -out leaf-only.pem 2>/dev/null
cat leaf-only.pem ca.pem >leaf.pem
chmod 600 ca-key.pem leaf-key.pem
