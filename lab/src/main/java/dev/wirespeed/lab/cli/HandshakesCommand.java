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
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code wirespeed handshakes}: the lab's TLS handshake load, on the library's client loop. */
@Command(name = "handshakes", mixinStandardHelpOptions = true,
        description = {"Keeps --connections TLS connections in flight to a TLS echo server from one event loop (the "
                + "library's FrameClient; epoll unless --impl says otherwise): each connects, completes a TLS 1.3 "
                + "handshake, closes cleanly (its close_notify, then up to 10 s for the server's) and is replaced by a "
                + "new one. The client resumes no session, so every handshake is a full one. Prints one JSON line per "
                + "round of --round-ms: the handshakes completed, per second, this process's CPU share, and the time "
                + "from a connect's start to its handshake's end. Trusts the certificates of --trust and checks the "
                + "name localhost."})
public final class HandshakesCommand implements Callable<Integer> {
    /** How long a handshake may take, and a closing connection wait for the server's close_notify. */
    static final Duration CLOSE_AND_HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);

    /** A command whose options picocli sets. */
    public HandshakesCommand() {
    }

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "TCP host (default ${DEFAULT-VALUE})")
    String host;

    @Option(names = "--port", defaultValue = "" + Defaults.ECHO_PORT, description = "TCP port (default "
            + "${DEFAULT-VALUE})")
    int port;

    @Option(names = "--impl", defaultValue = "native", converter = Names.LoopImplName.class,
            description = "the loop's transport: jdk (Selector), native (epoll) or uring (io_uring) "
                    + "(default ${DEFAULT-VALUE})")
    LoopImpl impl;

    @Option(names = "--connections", defaultValue = "64", description = "connections in flight (default "
            + "${DEFAULT-VALUE})")
    int connections;

    @Option(names = "--rounds", defaultValue = "3", description = "rounds (default ${DEFAULT-VALUE})")
    int rounds;

    @Option(names = "--round-ms", defaultValue = "1000", description = "each round's length in milliseconds "
            + "(default ${DEFAULT-VALUE})")
    long roundMillis;

    @Option(names = "--trust", required = true, description = "the certificates the server's is checked against, "
            + "PEM (the server's own, for a self-signed one)")
    Path trust;

    @Option(names = "--tls-engine", description = "the client's engine: jdk (the JDK's SSLEngine) or openssl "
            + "(OpenSSL 3 through FFM) (default: openssl where OpenSSL 3 is found, else jdk)")
    String engine;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
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
            err.println("wirespeed handshakes: " + e.getMessage());
            return ExitCode.USAGE;
        }
        try (LoopGroup loops = group.start()) {
            new HandshakeLoad(loops, address, connections, tls).run(rounds, roundMillis, round -> {
                out.println(ChildReports.line(round));
                out.flush();
            });
            return ExitCode.OK;
        } catch (IOException e) {
            err.println("wirespeed handshakes: " + e.getMessage());
            return ExitCode.IO_FAILURE;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("wirespeed handshakes: interrupted");
            return ExitCode.IO_FAILURE;
        }
    }

    /** {@return the engine {@code --tls-engine} names, or the default} */
    private TlsEngineFactory engine() {
        return TlsOptions.engine(engine != null ? engine : OpenSsl.isAvailable() ? "openssl" : "jdk");
    }
}
