package dev.wirespeed.lab.cli;

import dev.wirespeed.lab.ExitCode;
import dev.wirespeed.lab.LoopImpl;
import dev.wirespeed.lab.client.HandshakeLoad;
import dev.wirespeed.lab.result.ChildReports;
import dev.wirespeed.lab.tls.NoResumption;
import dev.wirespeed.lab.tls.TlsOptions;
import dev.wirespeed.linux.tls.OpenSsl;
import dev.wirespeed.loop.LoopGroup;
import dev.wirespeed.tls.Pem;
import dev.wirespeed.tls.TlsEngineFactory;
import dev.wirespeed.tls.TlsSettings;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Command;

/** {@code wirespeed handshakes}: the lab's TLS handshake load, on the library's client loop. */
@Command(name = "handshakes", mixinStandardHelpOptions = true,
        description = {"Keeps --connections TLS connections in flight to a TLS echo server from one event loop (the "
                + "library's FrameClient; epoll unless --impl says otherwise): each connects, completes a TLS 1.3 "
                + "handshake, closes cleanly (its close_notify, then up to 10 s for the server's) and is replaced by a "
                + "new one. The client resumes no session, so every handshake is a full one. Prints one JSON line per "
                + "round of --round-ms: the handshakes completed, per second, this process's CPU share, and the time "
                + "from a connect's start to its handshake's end. Trusts the certificates of --trust and checks the "
                + "name localhost."})
public final class HandshakesCommand extends DirectCommand {
    /** How long a handshake may take, and a closing connection wait for the server's close_notify. */
    static final Duration CLOSE_AND_HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);

    /** {@code --port}. */
    public static final Opt<Integer> PORT = Opt.ofInt("--port", Defaults.ECHO_PORT, "TCP port (default "
            + "${DEFAULT-VALUE})");

    /** {@code --impl}. */
    public static final Opt<LoopImpl> IMPL = LoadCommand.IMPL;

    /** {@code --connections}. */
    public static final Opt<Integer> CONNECTIONS = Opt.ofInt("--connections", 64, "connections in flight (default "
            + "${DEFAULT-VALUE})");

    /** {@code --rounds}. */
    public static final Opt<Integer> ROUNDS = LoadCommand.ROUNDS;

    /** {@code --round-ms}. */
    public static final Opt<Long> ROUND_MS = Opt.ofLong("--round-ms", 1000L, "each round's length in milliseconds "
            + "(default ${DEFAULT-VALUE})");

    /** {@code --trust}. */
    public static final Opt<Path> TRUST = Opt.ofPath("--trust", null, "the certificates the server's is checked "
            + "against, PEM (the server's own, for a self-signed one)").required();

    /** {@code --tls-engine}; absent: openssl where OpenSSL 3 is found, else jdk. */
    public static final Opt<String> ENGINE = Opt.ofString("--tls-engine", null, "the client's engine: jdk (the JDK's "
            + "SSLEngine) or openssl (OpenSSL 3 through FFM) (default: openssl where OpenSSL 3 is found, else jdk)");

    /** The options of {@code handshakes}. */
    public static final Options OPTIONS = Options.of("handshakes",
            List.of(ConnectOptions.HOST, PORT, IMPL, CONNECTIONS, ROUNDS, ROUND_MS, TRUST, ENGINE));

    /** A command with every option at its default. */
    public HandshakesCommand() {
        super(OPTIONS);
    }

    @Override
    public Integer call() {
        String host = args.get(ConnectOptions.HOST);
        int port = args.get(PORT);
        LoopImpl impl = args.get(IMPL);
        int connections = args.get(CONNECTIONS);
        int rounds = args.get(ROUNDS);
        long roundMillis = args.get(ROUND_MS);
        Path trust = args.get(TRUST);
        PrintWriter out = out();
        InetSocketAddress address;
        TlsSettings tls;
        LoopGroup.Builder group;
        try {
            if (connections < 1 || rounds < 1 || roundMillis < 1) {
                throw new IllegalArgumentException("--connections=" + connections + " --rounds=" + rounds
                        + " --round-ms=" + roundMillis + ": each at least 1");
            }
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("--port=" + port + " must be 1 to 65535 to connect");
            }
            address = new InetSocketAddress(host, port);
            // A client that stops waiting for the server's close_notify closes its socket, and a busy server's
            // close_notify (or the JDK engine's session ticket) then meets a reset: it waits as long as a handshake may.
            tls = TlsSettings.builder().trust(Pem.certificates(trust)).serverName("localhost")
                    .protocols(TlsSettings.Protocol.TLS_1_3).handshakeTimeout(CLOSE_AND_HANDSHAKE_TIMEOUT)
                    .closeTimeout(CLOSE_AND_HANDSHAKE_TIMEOUT).engine(new NoResumption(engine())).build();
            group = impl.apply(LoopGroup.builder().threadName("wirespeed-handshakes"));
        } catch (IllegalArgumentException | UnsupportedOperationException | IOException | GeneralSecurityException e) {
            return usage(e.getMessage());
        }
        try (LoopGroup loops = group.start()) {
            new HandshakeLoad(loops, address, connections, tls).run(rounds, roundMillis, round -> {
                out.println(ChildReports.line(round));
                out.flush();
            });
            return ExitCode.OK;
        } catch (IOException e) {
            return fail(ExitCode.IO_FAILURE, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return fail(ExitCode.IO_FAILURE, "interrupted");
        }
    }

    /** {@return the engine {@code --tls-engine} names, or the default} */
    private TlsEngineFactory engine() {
        String engine = args.get(ENGINE);
        return TlsOptions.engine(engine != null ? engine : OpenSsl.isAvailable() ? "openssl" : "jdk");
    }
}
