package dev.wirespeed.testing;

import dev.wirespeed.tls.Pem;
import dev.wirespeed.tls.TlsSettings;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * The TLS tests' keys and certificates ({@code scripts/make-test-certificates.sh} made them): a test CA;
 * {@code server} for localhost, 127.0.0.1 and ::1; {@code client}; {@code other-host} for
 * example.invalid; {@code expired} for localhost, valid through 2020 only; {@code untrusted} for
 * localhost from a CA nobody trusts. Copied out of the class path once per JVM.
 */
public final class TestCertificates {
    private static Path dir;

    private TestCertificates() {
    }

    /** {@return the file of resource {@code name} (e.g. {@code server.pem}), copied to a temporary directory} */
    public static synchronized Path file(String name) {
        try {
            if (dir == null) {
                dir = Files.createTempDirectory("wirespeed-tls");
                dir.toFile().deleteOnExit();
            }
            Path file = dir.resolve(name);
            if (!Files.exists(file)) {
                try (InputStream in = TestCertificates.class.getResourceAsStream("/dev/wirespeed/tls/" + name)) {
                    if (in == null) {
                        throw new IOException("no test resource /dev/wirespeed/tls/" + name);
                    }
                    Files.copy(in, file);
                }
                file.toFile().deleteOnExit();
            }
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@return the test CA's certificate} */
    public static X509Certificate ca() {
        return certificates("ca").getFirst();
    }

    /** {@return the certificates of {@code name}.pem} */
    public static List<X509Certificate> certificates(String name) {
        try {
            return Pem.certificates(file(name + ".pem"));
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@return the key of {@code name}.key} */
    public static PrivateKey key(String name) {
        try {
            return Pem.privateKey(file(name + ".key"));
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@return settings with the identity {@code name} and trusting the test CA, to build on} */
    public static TlsSettings.Builder identity(String name) {
        return TlsSettings.builder().identity(key(name), certificates(name)).trust(List.of(ca()));
    }

    /** {@return settings with no identity, trusting the test CA, to build on} */
    public static TlsSettings.Builder trustingTheTestCa() {
        return TlsSettings.builder().trust(List.of(ca()));
    }

    /** {@return the JDK's context with {@code identity} (or none) trusting the test CA: for peers the JDK plays} */
    public static SSLContext jdkContext(String identity) throws GeneralSecurityException, IOException {
        KeyStore keys = KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        KeyManagerFactory km = null;
        if (identity != null) {
            keys.setKeyEntry("id", key(identity), new char[0], certificates(identity).toArray(new Certificate[0]));
            km = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            km.init(keys, new char[0]);
        }
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        trust.setCertificateEntry("ca", ca());
        TrustManagerFactory tm = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tm.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(km == null ? null : km.getKeyManagers(), tm.getTrustManagers(), null);
        return context;
    }
}
