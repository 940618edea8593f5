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
import java.util.List;
import picocli.CommandLine.Command;

/** {@code wirespeed load}: the lab's pipelined load generator, on the library's client loop. */
@Command(name = "load", mixinStandardHelpOptions = true,
        description = {"Opens --connections connections to an echo server from one event loop (the library's "
                + "FrameClient; over the JDK's Selector, epoll with --impl native, or io_uring with --impl uring), "
                + "keeps --window frames of --size body bytes in flight on each, checks every echo byte for byte, "
                + "and prints one JSON line per round of --frames frames per connection: what the lab's C generator "
                + "('many load') prints, for the same servers. With --tls (and --trust) every connection speaks TLS."})
public final class LoadCommand extends DirectCommand {
    /** {@code --transport}. */
    public static final Opt<Transport> TRANSPORT = Opt.ofName("--transport", "--transport", Transport.values(),
            Transport.TCP, "tcp or unix (default ${DEFAULT-VALUE})");

    /** {@code --impl}. */
    public static final Opt<LoopImpl> IMPL = Opt.ofName("--impl", "--impl", LoopImpl.values(), LoopImpl.NATIVE,
            "the loop's transport: jdk (Selector), native (epoll) or uring (io_uring) (default ${DEFAULT-VALUE})");

    /** {@code --connections}. */
    public static final Opt<Integer> CONNECTIONS = Opt.ofInt("--connections", 1000, "connections (default "
            + "${DEFAULT-VALUE})");

    /** {@code --frames}. */
    public static final Opt<Long> FRAMES = Opt.ofLong("--frames", 1000L, "frames per connection per round (default "
            + "${DEFAULT-VALUE})");

    /** {@code --window}. */
    public static final Opt<Integer> WINDOW = Opt.ofInt("--window", 16, "frames in flight per connection (default "
            + "${DEFAULT-VALUE})");

    /** {@code --size}. */
    public static final Opt<Integer> SIZE = Opt.ofInt("--size", 100, "body bytes per frame (default "
            + "${DEFAULT-VALUE})");

    /** {@code --rounds}. */
    public static final Opt<Integer> ROUNDS = Opt.ofInt("--rounds", 3, "rounds (default ${DEFAULT-VALUE})");

    /** The options of {@code load}. */
    public static final Options OPTIONS = Options.of("load", List.of(TRANSPORT), ConnectOptions.ALL,
            List.of(IMPL, CONNECTIONS, FRAMES, WINDOW, SIZE, ROUNDS), TlsOptions.ALL);

    /** A command with every option at its default. */
    public LoadCommand() {
        super(OPTIONS);
    }

    @Override
    public Integer call() {
        Transport transport = args.get(TRANSPORT);
        ConnectOptions connect = new ConnectOptions(args);
        LoopImpl impl = args.get(IMPL);
        int connections = args.get(CONNECTIONS);
        long frames = args.get(FRAMES);
        int window = args.get(WINDOW);
        int size = args.get(SIZE);
        int rounds = args.get(ROUNDS);
        TlsOptions tlsOptions = new TlsOptions(args);
        PrintWriter out = out();
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
            return usage(e.getMessage());
        }
        try (LoopGroup loops = group.start()) {
            new LoopLoad(loops, address, connections, frames, window, size, tls).run(rounds, round -> {
                out.println(ChildReports.line(round));
                out.flush();
            });
            return ExitCode.OK;
        } catch (IllegalArgumentException e) {
            return usage(e.getMessage());
        } catch (IOException e) {
            return fail(ExitCode.IO_FAILURE, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return fail(ExitCode.IO_FAILURE, "interrupted");
        }
    }
}
