package dev.wirespeed.lab.tls;

import dev.wirespeed.linux.tls.OpenSsl;
import dev.wirespeed.tls.Pem;
import dev.wirespeed.tls.TlsEngineFactory;
import dev.wirespeed.tls.TlsSettings;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import picocli.CommandLine.Option;

/**
 * The TLS options of {@code echo} and {@code load}: {@code --tls}, the identity ({@code --cert} and
 * {@code --key}, or a self-signed one made at start), the trust of a client ({@code --trust}), and the
 * engine ({@code --tls-engine}). A picocli mixin.
 */
public final class TlsOptions {
    /** Options picocli sets. */
    public TlsOptions() {
    }

    @Option(names = "--tls", description = "speak TLS (1.3 or 1.2) on every connection")
    boolean tls;

    @Option(names = "--cert", description = "with --tls, a server's certificate chain, PEM (default: a self-signed "
            + "certificate for localhost made at start, its SHA-256 fingerprint printed)")
    Path cert;

    @Option(names = "--key", description = "with --cert, its unencrypted PKCS#8 key, PEM")
    Path key;

    @Option(names = "--trust", description = "with --tls, for a client: the certificates it trusts, PEM (the "
            + "server's own for a self-signed one); the host name checked is localhost")
    Path trust;

    @Option(names = "--tls-engine", defaultValue = "jdk", description = "with --tls: jdk (the JDK's SSLEngine) or "
            + "openssl (OpenSSL 3 through FFM; Netty's echo: its OpenSSL provider, BoringSSL) (default ${DEFAULT-VALUE})")
    String engine;

    /** {@return whether {@code --tls} was given} */
    public boolean on() {
        return tls;
    }

    /**
     * {@return the engine {@code --tls-engine} names}
     *
     * @throws IllegalArgumentException for another name, or OpenSSL where it is unusable (saying why)
     */
    public TlsEngineFactory engine() {
        return switch (engine) {
            case "jdk" -> TlsEngineFactory.jdk();
            case "openssl" -> {
                if (!OpenSsl.isAvailable()) {
                    throw new IllegalArgumentException("--tls-engine openssl: " + OpenSsl.unavailableReason());
                }
                yield OpenSsl.engine();
            }
            default -> throw new IllegalArgumentException("--tls-engine " + engine + ": use jdk or openssl");
        };
    }

    /** {@return whether {@code --tls-engine openssl} was given} */
    public boolean openssl() {
        return "openssl".equals(engine);
    }

    /**
     * {@return a server's settings}: {@code --cert} and {@code --key}, or a self-signed identity made now
     * in a temporary directory, whose fingerprint is printed on {@code err}
     *
     * @param err where the self-signed certificate is described
     * @throws IOException if a file cannot be read, or keytool fails
     * @throws GeneralSecurityException if a file is not what it should be
     * @throws InterruptedException if interrupted while keytool runs
     * @throws IllegalArgumentException if only one of {@code --cert} and {@code --key} is given, or TLS options
     *     are given without {@code --tls}
     */
    public TlsSettings server(PrintWriter err) throws IOException, GeneralSecurityException, InterruptedException {
        checkUse();
        if ((cert == null) != (key == null)) {
            throw new IllegalArgumentException("--cert and --key go together");
        }
        Path c = cert;
        Path k = key;
        if (c == null) {
            Path dir = Files.createTempDirectory("wirespeed-tls");
            SelfSigned made = SelfSigned.create(dir);
            c = made.certificate();
            k = made.key();
            err.println("tls: " + made);
            err.flush();
        }
        return TlsSettings.builder().identity(c, k).engine(engine()).build();
    }

    /**
     * {@return a client's settings}: trusting {@code --trust}, checking the name localhost
     *
     * @throws IOException if the file cannot be read
     * @throws GeneralSecurityException if it holds no certificate
     * @throws IllegalArgumentException if {@code --trust} is missing
     */
    public TlsSettings client() throws IOException, GeneralSecurityException {
        checkUse();
        if (trust == null) {
            throw new IllegalArgumentException("--tls needs --trust FILE: the certificates the server's is checked "
                    + "against (its own, for a self-signed one)");
        }
        return TlsSettings.builder().trust(Pem.certificates(trust)).serverName("localhost").engine(engine()).build();
    }

    private void checkUse() {
        if (!tls && (cert != null || key != null || trust != null)) {
            throw new IllegalArgumentException("--cert, --key and --trust need --tls");
        }
    }
}
