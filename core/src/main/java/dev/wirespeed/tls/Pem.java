package dev.wirespeed.tls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;

/**
 * Reads the PEM files TLS is usually configured with: certificates ({@code BEGIN CERTIFICATE}) and an
 * unencrypted PKCS#8 private key ({@code BEGIN PRIVATE KEY}, what {@code openssl genpkey} and
 * {@code openssl req -noenc} write), RSA, EC or EdDSA.
 *
 * <p>Thread safety: stateless.
 */
public final class Pem {
    private static final String KEY_BEGIN = "-----BEGIN PRIVATE KEY-----";
    private static final String KEY_END = "-----END PRIVATE KEY-----";

    private Pem() {
    }

    /**
     * Reads every certificate of a PEM file, in order: a chain starts with the end entity's.
     *
     * @param file the file
     * @return the certificates, at least one
     * @throws IOException if the file cannot be read
     * @throws GeneralSecurityException if it holds no certificate or a malformed one, naming the file
     */
    public static List<X509Certificate> certificates(Path file) throws IOException, GeneralSecurityException {
        byte[] bytes = Files.readAllBytes(file);
        List<X509Certificate> certificates = new ArrayList<>();
        try {
            for (Certificate c : CertificateFactory.getInstance("X.509")
                    .generateCertificates(new ByteArrayInputStream(bytes))) {
                certificates.add((X509Certificate) c);
            }
        } catch (GeneralSecurityException e) {
            throw new GeneralSecurityException(file + ": not PEM certificates: " + e.getMessage(), e);
        }
        if (certificates.isEmpty()) {
            throw new GeneralSecurityException(file + ": no certificate (no -----BEGIN CERTIFICATE----- block)");
        }
        return List.copyOf(certificates);
    }

    /**
     * Reads an unencrypted PKCS#8 private key. The bytes read, and the copies made of them on the way
     * (the base64 text, the DER), are zeroed once the key is made or refused; the key keeps its own copy
     * of the key material, as every JDK key does.
     *
     * @param file the file
     * @return the key
     * @throws IOException if the file cannot be read
     * @throws GeneralSecurityException if it holds no PKCS#8 key, an encrypted or a legacy one (naming its
     *     kind and how to convert it), or a key of an algorithm the JDK does not know, naming the file
     */
    public static PrivateKey privateKey(Path file) throws IOException, GeneralSecurityException {
        return privateKey(Files.readAllBytes(file), file.toString());
    }

    /**
     * {@return the key in {@code pem}, the bytes of a PEM file named {@code name} in messages}: consumes
     * {@code pem}, which is zeroed before this returns or throws, as is every copy made of it here
     */
    static PrivateKey privateKey(byte[] pem, String name) throws GeneralSecurityException {
        try {
            int begin = indexOf(pem, KEY_BEGIN, 0);
            int end = begin < 0 ? -1 : indexOf(pem, KEY_END, begin);
            if (end < 0) {
                for (String kind : List.of("ENCRYPTED PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY")) {
                    if (indexOf(pem, "-----BEGIN " + kind + "-----", 0) >= 0) {
                        throw new GeneralSecurityException(name + ": a " + kind + " block; wanted an unencrypted "
                                + "PKCS#8 PRIVATE KEY: convert it with 'openssl pkcs8 -topk8 -nocrypt -in " + name + "'");
                    }
                }
                throw new GeneralSecurityException(name + ": no " + KEY_BEGIN + " block");
            }
            byte[] base64 = Arrays.copyOfRange(pem, begin + KEY_BEGIN.length(), end);
            byte[] der;
            try {
                der = Base64.getMimeDecoder().decode(base64);
            } catch (IllegalArgumentException e) {
                throw new GeneralSecurityException(name + ": the PRIVATE KEY block is not base64: " + e.getMessage(), e);
            } finally {
                Arrays.fill(base64, (byte) 0);
            }
            try {
                PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der); // a copy of its own, which it cannot clear
                for (String algorithm : List.of("RSA", "EC", "Ed25519", "Ed448", "RSASSA-PSS")) {
                    try {
                        return KeyFactory.getInstance(algorithm).generatePrivate(spec);
                    } catch (InvalidKeySpecException wrongAlgorithm) {
                        // the next
                    }
                }
            } finally {
                Arrays.fill(der, (byte) 0);
            }
            throw new GeneralSecurityException(name + ": a PKCS#8 key of none of RSA, EC, Ed25519, Ed448, RSASSA-PSS");
        } finally {
            Arrays.fill(pem, (byte) 0);
        }
    }

    /** {@return the index of ASCII {@code text} in {@code bytes} at or after {@code from}, or -1} */
    private static int indexOf(byte[] bytes, String text, int from) {
        byte[] t = text.getBytes(StandardCharsets.US_ASCII);
        outer:
        for (int i = from; i <= bytes.length - t.length; i++) {
            for (int j = 0; j < t.length; j++) {
                if (bytes[i + j] != t[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
