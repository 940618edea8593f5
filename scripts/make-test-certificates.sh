#!/usr/bin/env bash
# Makes the TLS tests' keys and certificates (core/src/test/resources/dev/wirespeed/tls), with the
# openssl command: a test CA, a server certificate for localhost, a client certificate, one for another
# host, an expired one, and one from a CA nobody trusts. All EC P-256; the good ones valid until 2125.
# The tests use the files committed; run this only to make new ones.
set -euo pipefail
out="$(cd "$(dirname "$0")/.." && pwd)/core/src/test/resources/dev/wirespeed/tls"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }
days=36500

key ca.key
openssl req -x509 -new -key ca.key -subj "/CN=wirespeed test CA" -days "$days" -out ca.pem \
    -addext "basicConstraints=critical,CA:true" -addext "keyUsage=critical,keyCertSign,cRLSign"
key rogue-ca.key
openssl req -x509 -new -key rogue-ca.key -subj "/CN=wirespeed rogue CA" -days "$days" -out rogue-ca.pem \
    -addext "basicConstraints=critical,CA:true" -addext "keyUsage=critical,keyCertSign,cRLSign"

issue() { # name subject san extendedKeyUsage ca
    key "$1.key"
    openssl req -new -key "$1.key" -subj "/CN=$2" -out "$1.csr"
    printf 'subjectAltName=%s\nextendedKeyUsage=%s\nbasicConstraints=CA:false\n' "$3" "$4" > "$1.ext"
    openssl x509 -req -in "$1.csr" -CA "$5.pem" -CAkey "$5.key" -CAcreateserial -days "$days" \
        -extfile "$1.ext" -out "$1.pem" 2>/dev/null
}
issue server localhost "DNS:localhost,IP:127.0.0.1,IP:::1" serverAuth ca
issue client "wirespeed test client" "DNS:client.test" clientAuth ca
issue other-host example.invalid "DNS:example.invalid" serverAuth ca
issue untrusted localhost "DNS:localhost,IP:127.0.0.1,IP:::1" serverAuth rogue-ca

# Expired: 'openssl ca' takes explicit dates.
key expired.key
openssl req -new -key expired.key -subj "/CN=localhost" -out expired.csr
mkdir -p db && : > db/index && echo 1000 > db/serial
cat > ca.cnf <<CNF
[ca]
default_ca = test
[test]
database = db/index
serial = db/serial
new_certs_dir = db
certificate = ca.pem
private_key = ca.key
default_md = sha256
policy = any
copy_extensions = none
x509_extensions = ext
[any]
commonName = supplied
[ext]
subjectAltName = DNS:localhost,IP:127.0.0.1
extendedKeyUsage = serverAuth
basicConstraints = CA:false
CNF
openssl ca -batch -config ca.cnf -startdate 20200101000000Z -enddate 20210101000000Z -in expired.csr \
    -out expired.pem -notext 2>/dev/null

for name in ca server client other-host untrusted expired; do
    cp "$name.pem" "$out/$name.pem"
done
for name in server client other-host untrusted expired; do
    cp "$name.key" "$out/$name.key"
done
echo "wrote $(ls "$out" | wc -l) files to $out"
