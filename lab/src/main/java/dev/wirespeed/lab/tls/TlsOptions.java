package dev.wirespeed.lab.tls;

import dev.wirespeed.lab.cli.Args;
import dev.wirespeed.lab.cli.Opt;
import dev.wirespeed.linux.tls.OpenSsl;
import dev.wirespeed.tls.Pem;
import dev.wirespeed.tls.TlsEngineFactory;
import dev.wirespeed.tls.TlsSettings;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.List;

/**
 * The TLS options of {@code echo}, {@code server}, {@code client} and {@code load}: {@code --tls}, the
 * identity ({@code --cert} and {@code --key}, or a self-signed one made at start), the trust of a client
 * ({@code --trust}), and the engine ({@code --tls-engine}).
 */
public final class TlsOptions {
    /** {@code --tls}. */
    public static final Opt<Boolean> TLS = Opt.flag("--tls", "speak TLS (1.3 or 1.2) on every connection");

    /** {@code --cert}. */
    public static final Opt<Path> CERT = Opt.ofPath("--cert", null, "with --tls, a server's certificate chain, PEM "
            + "(default: a self-signed certificate for localhost made at start, its SHA-256 fingerprint printed)");

    /** {@code --key}. */
    public static final Opt<Path> KEY = Opt.ofPath("--key", null, "with --cert, its unencrypted PKCS#8 key, PEM");

    /** {@code --trust}. */
    public static final Opt<Path> TRUST = Opt.ofPath("--trust", null, "with --tls, for a client: the certificates "
            + "it trusts, PEM (the server's own for a self-signed one); the host name checked is localhost");

    /** {@code --tls-engine}: {@code jdk} or {@code openssl}. */
    public static final Opt<String> ENGINE = Opt.ofString("--tls-engine", "jdk", "with --tls: jdk (the JDK's "
            + "SSLEngine) or openssl (OpenSSL 3 through FFM; Netty's servers and clients: its OpenSSL provider, "
            + "BoringSSL) (default ${DEFAULT-VALUE})");

    /** These options, in the order a line writes them. */
    public static final List<Opt<?>> ALL = List.of(TLS, CERT, KEY, TRUST, ENGINE);

    private final boolean tls;
    private final Path cert;
    private final Path key;
    private final Path trust;
    private final String engine;

    /**
     * The TLS options of a line.
     *
     * @param args a line of a command that takes {@link #ALL}
     */
    public TlsOptions(Args args) {
        this.tls = args.get(TLS);
        this.cert = args.get(CERT);
        this.key = args.get(KEY);
        this.trust = args.get(TRUST);
        this.engine = args.get(ENGINE);
    }

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
        return engine(engine);
    }

    /**
     * {@return the engine a {@code --tls-engine} value names}
     *
     * @param name {@code jdk} or {@code openssl}
     * @throws IllegalArgumentException for another name, or OpenSSL where it is unusable (saying why)
     */
    public static TlsEngineFactory engine(String name) {
        return switch (name) {
            case "jdk" -> TlsEngineFactory.jdk();
            case "openssl" -> {
                if (!OpenSsl.isAvailable()) {
                    throw new IllegalArgumentException("--tls-engine openssl: " + OpenSsl.unavailableReason());
                }
                yield OpenSsl.engine();
            }
            default -> throw new IllegalArgumentException("--tls-engine " + name + ": use jdk or openssl");
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
        Identity identity = identity(err);
        return TlsSettings.builder().identity(identity.cert(), identity.key()).engine(engine()).build();
    }

    /**
     * {@return Netty's server context for the same identity as {@link #server}}: its JDK provider, or with
     * {@code --tls-engine openssl} its OpenSSL one (BoringSSL, from {@code netty-tcnative}); TLS 1.3 and 1.2
     *
     * @param err where a self-signed certificate is described
     * @throws IOException if a file cannot be read, or keytool fails
     * @throws GeneralSecurityException if Netty refuses the files
     * @throws InterruptedException if interrupted while keytool runs
     * @throws IllegalArgumentException as {@link #server}, or for {@code openssl} where Netty's does not load
     */
    public SslContext nettyServer(PrintWriter err) throws IOException, GeneralSecurityException, InterruptedException {
        Identity identity = identity(err);
        try {
            return SslContextBuilder.forServer(identity.cert().toFile(), identity.key().toFile())
                    .sslProvider(nettyProvider()).protocols("TLSv1.3", "TLSv1.2").build();
        } catch (javax.net.ssl.SSLException e) {
            throw new GeneralSecurityException("Netty refuses --cert " + identity.cert() + " --key " + identity.key()
                    + ": " + e.getMessage(), e);
        }
    }

    /**
     * {@return the provider of Netty's contexts that {@code --tls-engine} names}
     *
     * @throws IllegalArgumentException for {@code openssl} where Netty's OpenSSL does not load, saying why
     */
    public SslProvider nettyProvider() {
        return nettyProvider(openssl());
    }

    /**
     * {@return Netty's JDK provider, or its OpenSSL one (BoringSSL, from {@code netty-tcnative})}
     *
     * @param openssl whether OpenSSL's
     * @throws IllegalArgumentException for OpenSSL where Netty's does not load, saying why
     */
    public static SslProvider nettyProvider(boolean openssl) {
        if (!openssl) {
            return SslProvider.JDK;
        }
        if (!io.netty.handler.ssl.OpenSsl.isAvailable()) {
            throw new IllegalArgumentException("--tls-engine openssl: Netty's OpenSSL (netty-tcnative) did not load: "
                    + io.netty.handler.ssl.OpenSsl.unavailabilityCause());
        }
        return SslProvider.OPENSSL;
    }

    /** A server's certificate chain file and its key's. */
    private record Identity(Path cert, Path key) {
    }

    /** {@return the certificate chain's file and the key's: given, or made now} */
    private Identity identity(PrintWriter err) throws IOException, InterruptedException {
        checkUse();
        if ((cert == null) != (key == null)) {
            throw new IllegalArgumentException("--cert and --key go together");
        }
        if (cert != null) {
            return new Identity(cert, key);
        }
        Path dir = Files.createTempDirectory("wirespeed-tls");
        SelfSigned made = SelfSigned.create(dir);
        err.println("tls: " + made);
        err.flush();
        return new Identity(made.certificate(), made.key());
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
