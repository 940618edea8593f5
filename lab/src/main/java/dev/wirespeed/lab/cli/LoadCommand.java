package dev.wirespeed.lab.cli;

import dev.wirespeed.lab.ExitCode;
import dev.wirespeed.lab.LoopImpl;
import dev.wirespeed.lab.Transport;
import dev.wirespeed.lab.client.LoopLoad;
import dev.wirespeed.lab.result.ChildReports;
import dev.wirespeed.lab.tls.TlsOptions;
import dev.wirespeed.loop.LoopGroup;
import dev.wirespeed.tls.TlsSettings;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.SocketAddress;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code wirespeed load}: the lab's pipelined load generator, on the library's client loop. */
@Command(name = "load", mixinStandardHelpOptions = true,
        description = {"Opens --connections connections to an echo server from one event loop (the library's "
                + "FrameClient; over the JDK's Selector, epoll with --impl native, or io_uring with --impl uring), "
                + "keeps --window frames of --size body bytes in flight on each, checks every echo byte for byte, "
                + "and prints one JSON line per round of --frames frames per connection: what the lab's C generator "
                + "('many load') prints, for the same servers. With --tls (and --trust) every connection speaks TLS."})
public final class LoadCommand implements Callable<Integer> {
    /** A command whose options picocli sets. */
    public LoadCommand() {
    }

    @Option(names = "--transport", defaultValue = "tcp", description = "tcp or unix (default ${DEFAULT-VALUE})")
    Transport transport;

    @CommandLine.Mixin
    ConnectOptions connect;

    @Option(names = "--impl", defaultValue = "native", converter = Names.LoopImplName.class,
            description = "the loop's transport: jdk (Selector), native (epoll) or uring (io_uring) "
                    + "(default ${DEFAULT-VALUE})")
    LoopImpl impl;

    @Option(names = "--connections", defaultValue = "1000", description = "connections (default ${DEFAULT-VALUE})")
    int connections;

    @Option(names = "--frames", defaultValue = "1000", description = "frames per connection per round "
            + "(default ${DEFAULT-VALUE})")
    long frames;

    @Option(names = "--window", defaultValue = "16", description = "frames in flight per connection "
            + "(default ${DEFAULT-VALUE})")
    int window;

    @Option(names = "--size", defaultValue = "100", description = "body bytes per frame (default ${DEFAULT-VALUE})")
    int size;

    @Option(names = "--rounds", defaultValue = "3", description = "rounds (default ${DEFAULT-VALUE})")
    int rounds;

    @CommandLine.Mixin
    TlsOptions tlsOptions;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        SocketAddress address;
        LoopGroup.Builder group;
        TlsSettings tls = null;
        try {
            if (tlsOptions.on()) {
                tls = tlsOptions.client();
            }
            if (rounds < 1) {
                throw new IllegalArgumentException("--rounds=" + rounds + " must be at least 1");
            }
            address = connect.socket(transport, Defaults.ECHO_PORT);
            group = impl.apply(LoopGroup.builder().threadName("wirespeed-load"));
        } catch (IllegalArgumentException | UnsupportedOperationException | IOException
                | java.security.GeneralSecurityException e) {
            err.println("wirespeed load: " + e.getMessage());
            return ExitCode.USAGE;
        }
        try (LoopGroup loops = group.start()) {
            new LoopLoad(loops, address, connections, frames, window, size, tls).run(rounds, round -> {
                out.println(ChildReports.line(round));
                out.flush();
            });
            return ExitCode.OK;
        } catch (IllegalArgumentException e) {
            err.println("wirespeed load: " + e.getMessage());
            return ExitCode.USAGE;
        } catch (IOException e) {
            err.println("wirespeed load: " + e.getMessage());
            return ExitCode.IO_FAILURE;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("wirespeed load: interrupted");
            return ExitCode.IO_FAILURE;
        }
    }
}
