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
     * Reads an unencrypted PKCS#8 private key.
     *
     * @param file the file
     * @return the key
     * @throws IOException if the file cannot be read
     * @throws GeneralSecurityException if it holds no PKCS#8 key, an encrypted or a legacy one (naming its
     *     kind and how to convert it), or a key of an algorithm the JDK does not know, naming the file
     */
    public static PrivateKey privateKey(Path file) throws IOException, GeneralSecurityException {
        String text = Files.readString(file, StandardCharsets.US_ASCII);
        int begin = text.indexOf(KEY_BEGIN);
        int end = text.indexOf(KEY_END);
        if (begin < 0 || end < begin) {
            for (String kind : List.of("ENCRYPTED PRIVATE KEY", "RSA PRIVATE KEY", "EC PRIVATE KEY")) {
                if (text.contains("-----BEGIN " + kind + "-----")) {
                    throw new GeneralSecurityException(file + ": a " + kind + " block; wanted an unencrypted PKCS#8 "
                            + "PRIVATE KEY: convert it with 'openssl pkcs8 -topk8 -nocrypt -in " + file + "'");
                }
            }
            throw new GeneralSecurityException(file + ": no " + KEY_BEGIN + " block");
        }
        byte[] der;
        try {
            der = Base64.getMimeDecoder().decode(text.substring(begin + KEY_BEGIN.length(), end));
        } catch (IllegalArgumentException e) {
            throw new GeneralSecurityException(file + ": the PRIVATE KEY block is not base64: " + e.getMessage(), e);
        }
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
        for (String algorithm : List.of("RSA", "EC", "Ed25519", "Ed448", "RSASSA-PSS")) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (InvalidKeySpecException wrongAlgorithm) {
                // the next
            }
        }
        throw new GeneralSecurityException(file + ": a PKCS#8 key of none of RSA, EC, Ed25519, Ed448, RSASSA-PSS");
    }
}
