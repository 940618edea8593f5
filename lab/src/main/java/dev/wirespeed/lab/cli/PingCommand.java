package dev.wirespeed.lab.cli;

import dev.wirespeed.frame.CorruptFrameException;
import dev.wirespeed.frame.FrameFormat;
import dev.wirespeed.frame.FrameTooLongException;
import dev.wirespeed.frame.TruncatedFrameException;
import dev.wirespeed.io.IdleStrategy;
import dev.wirespeed.lab.ExitCode;
import dev.wirespeed.lab.Idle;
import dev.wirespeed.lab.Ring;
import dev.wirespeed.lab.Transport;
import dev.wirespeed.lab.pingpong.Impl;
import dev.wirespeed.lab.pingpong.NettyPing;
import dev.wirespeed.lab.pingpong.Percentiles;
import dev.wirespeed.lab.pingpong.PingLoop;
import dev.wirespeed.lab.pingpong.SocketApi;
import dev.wirespeed.lab.pingpong.Sockets;
import dev.wirespeed.lab.pingpong.WarmupEnd;
import dev.wirespeed.lab.result.ChildReport;
import dev.wirespeed.lab.result.ChildReports;
import dev.wirespeed.lab.tls.TlsOptions;
import dev.wirespeed.lab.tls.TlsSockets;
import dev.wirespeed.testkit.SequenceMismatchException;
import dev.wirespeed.tls.TlsSettings;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.channels.ByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.Locale;
import java.util.List;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;

/** {@code wirespeed ping}: round-trip latency to {@code wirespeed echo}, as percentiles. */
@Command(name = "ping", mixinStandardHelpOptions = true,
        description = {"Sends frames of the sequence stream to 'wirespeed echo', one at a time, verifies each echo, and "
                + "prints the round-trip percentiles (HdrHistogram, 3 significant digits) in microseconds.",
            "Closed loop by default: the next frame goes when the echo is back. With --rate R, open loop: frame i is "
                + "due at i/R seconds and its latency counts from then (coordinated omission corrected).",
            "With --json the only output is one line: {\"p50\":..,\"p90\":..,\"p99\":..,\"p999\":..,\"p9999\":..,\"max\":..,\"unit\":\"us\"}.",
            "Exit codes: 0 success, 2 bad command line, 3 the echo broke the wire format, "
                + "4 an echo was not the frame sent, 5 I/O failure."})
public final class PingCommand extends DirectCommand {
    /** {@code --transport}. */
    public static final Opt<Transport> TRANSPORT = Opt.ofName("--transport", "--transport", Transport.values(), null,
            "tcp or unix").required();

    /** {@code --impl}. */
    public static final Opt<Impl> IMPL = Opt.ofName("--impl", "--impl", Impl.values(), null, "jdk, jdk-spin, native, "
            + "native-spin, uring, uring-spin (io_uring: waiting in the kernel, or polling the completion queue), "
            + "netty or netty-uring (Netty over epoll or io_uring; tcp only)").required();

    /** {@code --idle}; absent: {@link Idle#SPIN}. */
    public static final Opt<Idle> IDLE = Opt.ofName("--idle", "--idle", Idle.values(), null, "with --impl jdk-spin, "
            + "native-spin or uring-spin: what the reader and writer do between empty calls: spin (the default: yield "
            + "every 8th), busy-spin, yield, backoff");

    /** {@code --ring}. */
    public static final Opt<Ring> RING = Opt.ofName("--ring", "--ring", Ring.values(), Ring.DEFAULT, "with --impl "
            + "uring or uring-spin: how the ring is set up: default (interrupt-driven when waiting, coop when "
            + "polling), interrupt, coop (COOP_TASKRUN with TASKRUN_FLAG), defer (SINGLE_ISSUER with DEFER_TASKRUN), "
            + "sqpoll (a kernel thread pinned to this process's first CPU takes the submissions; with uring-spin "
            + "pinned to one CPU the ping and that thread share it and the ping all but stops); the echo's ring is "
            + "its own (default ${DEFAULT-VALUE})");

    /** {@code --count}. */
    public static final Opt<Long> COUNT = Opt.ofLong("--count", null, "round trips measured").required();

    /** {@code --warmup}. */
    public static final Opt<Long> WARMUP = Opt.ofLong("--warmup", 20_000L, "round trips before measuring, in the "
            + "same loop (at --rate, if given) (default ${DEFAULT-VALUE})");

    /** {@code --warmup-ms}. */
    public static final Opt<Long> WARMUP_MS = Opt.ofLong("--warmup-ms", 0L, "the least length of the warm-up in "
            + "milliseconds: it ends when both --warmup round trips and this time have passed (default "
            + "${DEFAULT-VALUE})");

    /** {@code --settle-ms}. */
    public static final Opt<Long> SETTLE_MS = Opt.ofLong("--settle-ms", 0L, "after --warmup and --warmup-ms, warm up "
            + "until the JIT has compiled nothing for this many milliseconds, at most " + WarmupEnd.MAX_FACTOR
            + " times --warmup-ms plus this in all; 0: do not wait (default ${DEFAULT-VALUE})");

    /** {@code --size}. */
    public static final Opt<Integer> SIZE = Opt.ofInt("--size", 100, "body bytes per frame (default "
            + "${DEFAULT-VALUE})");

    /** {@code --rate}. */
    public static final Opt<Double> RATE = Opt.ofDouble("--rate", 0.0, "frames per second, open loop; 0: closed "
            + "loop (default)");

    /** {@code --json}. */
    public static final Opt<Boolean> JSON = Opt.flag("--json", "print only the percentiles, as one JSON line");

    /** {@code --hgrm}. */
    public static final Opt<Path> HGRM = Opt.ofPath("--hgrm", null, "also write the histogram's percentile "
            + "distribution (microseconds) here");

    /** The options of {@code ping}. */
    public static final Options OPTIONS = Options.of("ping", List.of(TRANSPORT), ConnectOptions.ALL,
            List.of(IMPL, IDLE, RING, COUNT, WARMUP, WARMUP_MS, SETTLE_MS, SIZE, RATE, JSON, HGRM), TlsOptions.ALL);

    /** A command with every option at its default. */
    public PingCommand() {
        super(OPTIONS);
    }

    @Override
    public Integer call() {
        Transport transport = args.get(TRANSPORT);
        ConnectOptions peer = new ConnectOptions(args);
        Impl impl = args.get(IMPL);
        Idle idle = args.get(IDLE);
        Ring ring = args.get(RING);
        long count = args.get(COUNT);
        long warmup = args.get(WARMUP);
        long warmupMs = args.get(WARMUP_MS);
        long settleMs = args.get(SETTLE_MS);
        int size = args.get(SIZE);
        double rate = args.get(RATE);
        boolean json = args.get(JSON);
        Path hgrm = args.get(HGRM);
        TlsOptions tlsOptions = new TlsOptions(args);
        PrintWriter err = err();
        PrintWriter out = out();
        SocketAddress address;
        TlsSettings tls = null;
        try {
            if (count < 1 || warmup < 0 || warmupMs < 0 || warmupMs > 3_600_000 || settleMs < 0 || settleMs > 60_000
                    || size < 0 || size > FrameFormat.DEFAULT_MAX_FRAME_LENGTH || rate < 0) {
                throw new IllegalArgumentException("--count=" + count + " must be >= 1, --warmup=" + warmup
                        + " >= 0, --warmup-ms=" + warmupMs + " 0 to 3600000, --settle-ms=" + settleMs + " 0 to 60000, "
                        + "--size=" + size + " 0 to " + FrameFormat.DEFAULT_MAX_FRAME_LENGTH + ", --rate=" + rate
                        + " >= 0");
            }
            if (impl.netty() != null && transport != Transport.TCP) {
                throw new IllegalArgumentException("--impl " + impl + " needs --transport tcp");
            }
            address = peer.socket(transport, Defaults.ECHO_PORT);
            if (ring != Ring.DEFAULT && impl.api() != SocketApi.URING) {
                throw new IllegalArgumentException("--ring " + ring + " needs --impl uring or uring-spin");
            }
            if (idle != null && !impl.spin()) {
                throw new IllegalArgumentException("--idle " + idle + " needs --impl jdk-spin, native-spin or uring-spin");
            }
            if (tlsOptions.on()) {
                if (impl != Impl.JDK || transport != Transport.TCP) {
                    throw new IllegalArgumentException("--tls needs --impl jdk --transport tcp: the JDK's SSLSocket");
                }
                tls = tlsOptions.client();
            }
        } catch (IllegalArgumentException | GeneralSecurityException e) {
            return usage(e.getMessage());
        } catch (IOException e) {
            return usage("--trust: " + e.getMessage());
        }
        IdleStrategy idleStrategy = (idle == null ? Idle.SPIN : idle).strategy();
        Histogram histogram = new Histogram(3_600_000_000_000L, 3); // 1 ns to 1 hour, 3 significant digits
        long warmedUp;
        WarmupEnd warmupEnd = new WarmupEnd(warmupMs * 1_000_000, settleMs * 1_000_000);
        try {
            if (impl.netty() != null) {
                warmedUp = NettyPing.run(impl.netty(), (InetSocketAddress) address, size, warmup, warmupEnd, count, rate,
                        histogram);
            } else {
                try (ByteChannel channel = tls != null ? TlsSockets.connect((InetSocketAddress) address, tls)
                        : Sockets.connect(address, impl.api(), impl.spin(), idleStrategy, ring)) {
                    PingLoop loop = new PingLoop(channel, size, idleStrategy);
                    warmedUp = loop.run(warmup, warmupEnd, count, rate, histogram);
                }
            }
        } catch (CorruptFrameException | FrameTooLongException | TruncatedFrameException e) {
            return fail(ExitCode.BAD_INPUT, e.getMessage());
        } catch (SequenceMismatchException e) {
            return fail(ExitCode.VERIFY_FAILED, "an echo was not the frame sent: " + e.getMessage());
        } catch (IOException e) {
            return fail(ExitCode.IO_FAILURE, "I/O failure: " + e);
        }
        if (hgrm != null) {
            try (PrintStream file = new PrintStream(Files.newOutputStream(hgrm), false, java.nio.charset.StandardCharsets.UTF_8)) {
                histogram.outputPercentileDistribution(file, 1000.0);
            } catch (IOException e) {
                return fail(ExitCode.IO_FAILURE, "cannot write --hgrm " + hgrm + ": " + e.getMessage());
            }
        }
        ChildReport.Latency percentiles = Percentiles.of(histogram);
        if (json) {
            out.println(ChildReports.line(percentiles));
        } else {
            out.printf(Locale.ROOT, "ping %s over %s, %d-byte bodies, %s: %d round trips after %d warm-up ones%s%n",
                    impl, transport, size, rate > 0 ? String.format(Locale.ROOT, "open loop at %.0f/s", rate) : "closed loop",
                    count, warmedUp, settleMs == 0 ? "" : warmupEnd.settledByJit() ? ", the JIT settled"
                            : ", the JIT still compiling when the warm-up ran out");
            out.println(Percentiles.text(percentiles));
        }
        out.flush();
        return ExitCode.OK;
    }

}
