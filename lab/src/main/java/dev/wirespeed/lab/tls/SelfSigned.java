package dev.wirespeed.lab.tls;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * A self-signed identity for localhost (127.0.0.1, ::1), made by the JDK's {@code keytool}: an EC P-256
 * key and a certificate valid for two days, written as PEM files the lab's servers and clients (and
 * Netty's) read.
 *
 * @param certificate the certificate's PEM file
 * @param key the unencrypted PKCS#8 key's PEM file
 * @param fingerprint the certificate's SHA-256, in hex pairs
 */
public record SelfSigned(Path certificate, Path key, String fingerprint) {
    private static final String PASSWORD = "wirespeed";

    /**
     * Makes one in {@code dir}.
     *
     * @param dir an existing directory; {@code cert.pem} and {@code key.pem} are written there
     * @return the files and the fingerprint
     * @throws IOException if {@code keytool} is missing or fails, naming what it said
     * @throws InterruptedException if interrupted while {@code keytool} runs
     */
    public static SelfSigned create(Path dir) throws IOException, InterruptedException {
        Path store = dir.resolve("identity.p12");
        Files.deleteIfExists(store);
        String java = ProcessHandle.current().info().command().orElse("java");
        Path keytool = Path.of(java).resolveSibling("keytool");
        List<String> command = List.of(Files.isExecutable(keytool) ? keytool.toString() : "keytool", "-genkeypair",
                "-alias", "wirespeed", "-keyalg", "EC", "-groupname", "secp256r1", "-sigalg", "SHA256withECDSA",
                "-dname", "CN=localhost", "-ext", "SAN=dns:localhost,ip:127.0.0.1,ip:::1", "-validity", "2",
                "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", PASSWORD, "-keypass", PASSWORD);
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (!p.waitFor(1, TimeUnit.MINUTES) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException("keytool could not make a self-signed certificate: " + said);
        }
        try (InputStream in = Files.newInputStream(store)) {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(in, PASSWORD.toCharArray());
            PrivateKey key = (PrivateKey) ks.getKey("wirespeed", PASSWORD.toCharArray());
            X509Certificate cert = (X509Certificate) ks.getCertificate("wirespeed");
            Path certFile = dir.resolve("cert.pem");
            Path keyFile = dir.resolve("key.pem");
            Files.writeString(certFile, pem("CERTIFICATE", cert.getEncoded()), StandardCharsets.US_ASCII);
            Files.writeString(keyFile, pem("PRIVATE KEY", key.getEncoded()), StandardCharsets.US_ASCII);
            return new SelfSigned(certFile, keyFile, fingerprint(cert));
        } catch (GeneralSecurityException e) {
            throw new IOException("keytool's key store is unreadable: " + e.getMessage(), e);
        } finally {
            Files.deleteIfExists(store);
        }
    }

    /**
     * {@return the SHA-256 of {@code cert}'s encoding as {@code AB:CD:...}}
     *
     * @param cert a certificate
     * @throws GeneralSecurityException if it cannot be encoded
     */
    public static String fingerprint(X509Certificate cert) throws GeneralSecurityException {
        byte[] digest = MessageDigest.getInstance("SHA-256").digest(cert.getEncoded());
        List<String> pairs = new ArrayList<>();
        for (byte b : digest) {
            pairs.add(HexFormat.of().withUpperCase().toHexDigits(b));
        }
        return String.join(":", pairs);
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                .encodeToString(der) + "\n-----END " + type + "-----\n";
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "self-signed certificate for localhost %s (key %s), SHA-256 %s", certificate,
                key, fingerprint);
    }
}
