package dev.wirespeed.lab.cli;

import dev.wirespeed.frame.CorruptFrameException;
import dev.wirespeed.frame.FrameFormat;
import dev.wirespeed.frame.FrameTooLongException;
import dev.wirespeed.frame.TruncatedFrameException;
import dev.wirespeed.lab.ExitCode;
import dev.wirespeed.lab.Idle;
import dev.wirespeed.lab.Transport;
import dev.wirespeed.lab.client.FrameCheck;
import dev.wirespeed.lab.client.IdleWatchdog;
import dev.wirespeed.lab.client.NettyClient;
import dev.wirespeed.lab.client.Receiver;
import dev.wirespeed.lab.client.Rounds;
import dev.wirespeed.lab.client.Source;
import dev.wirespeed.lab.client.Sources;
import dev.wirespeed.lab.client.Strategies;
import dev.wirespeed.lab.tls.TlsOptions;
import dev.wirespeed.testkit.SequenceMismatchException;
import dev.wirespeed.tls.TlsSettings;
import java.io.IOException;
import java.io.PrintWriter;
import java.security.GeneralSecurityException;
import java.util.List;
import picocli.CommandLine.Command;

/** {@code wirespeed client}: reads the frame stream with one strategy and prints the articles' lines. */
@Command(name = "client", mixinStandardHelpOptions = true,
        description = {"Reads frames with one strategy and prints, per round of --messages frames (or of --round-ms "
                + "milliseconds), 'Time for N msg: T; speed: X msg/s; Y MB/s' (T in ms, MB = 10^6 bytes, 8 header bytes "
                + "counted), then a summary line.",
            "With --tls the loop and Netty strategies speak TLS, trusting --trust and checking the name localhost.",
            "With --round-ms the first round is a warm-up: it lasts --warmup-ms, then (unless --no-jit-settle) until "
                + "the JIT has compiled nothing for one round's length, at most " + Rounds.ByTime.MAX_WARMUP_FACTOR
                + " times --warmup-ms (and one round) in all.",
            "Exit codes: 0 success, 2 bad command line, 3 the input broke the wire format, "
                + "4 --verify found an unexpected frame, 5 I/O failure (refused, reset, --read-timeout)."})
public final class ClientCommand extends DirectCommand {
    /** Frames per round when neither {@code --messages} nor {@code --round-ms} is given. */
    static final long DEFAULT_MESSAGES = 10_000_000;

    /** {@code --transport}. */
    public static final Opt<Transport> TRANSPORT = Opt.ofName("--transport", "--transport", Transport.values(), null,
            "tcp, unix, stdin or file").required();

    /** {@code --strategy}. */
    public static final Opt<Strategies> STRATEGY = Opt.ofName("--strategy", "strategy", Strategies.values(), null,
            "unbuffered, readint, buffered, buffered-readint, no-alloc, channel, channel-compact, zero-copy, "
            + "wirespeed, wirespeed-spin, native, native-spin, uring, uring-spin (tcp or unix), netty-nio, "
            + "netty-epoll, netty-uring (tcp only), loop (the library's FrameClient on one loop over epoll; tcp or "
            + "unix)").required();

    /** {@code --idle}; absent: {@link Idle#SPIN}. */
    public static final Opt<Idle> IDLE = Opt.ofName("--idle", "--idle", Idle.values(), null, "with a busy-polling "
            + "strategy (wirespeed-spin, native-spin): what the reader does between empty reads: spin (the default: "
            + "yield every 8th), busy-spin, yield, backoff");

    /** {@code --messages}; absent: {@link #DEFAULT_MESSAGES} unless {@code --round-ms}. */
    public static final Opt<Long> MESSAGES = Opt.ofLong("--messages", null, "frames per round (default "
            + DEFAULT_MESSAGES + ")");

    /** {@code --round-ms}. */
    public static final Opt<Long> ROUND_MS = Opt.ofLong("--round-ms", null, "rounds of this many milliseconds "
            + "instead of --messages frames (at least 1)").label("MS");

    /** {@code --warmup-ms}. */
    public static final Opt<Long> WARMUP_MS = Opt.ofLong("--warmup-ms", null, "with --round-ms: the least length of "
            + "the first round, the warm-up (default 0: one round's length of JIT quiet is still waited for)")
            .label("MS");

    /** {@code --jit-settle}, {@code --no-jit-settle}. */
    public static final Opt<Boolean> JIT_SETTLE = Opt.negatable("--jit-settle", "with --round-ms: whether the "
            + "warm-up also waits for the JIT to settle (default true)");

    /** {@code --rounds}. */
    public static final Opt<Long> ROUNDS = Opt.ofLong("--rounds", 0L, "rounds before stopping; 0: until the stream "
            + "ends");

    /** {@code --verify}. */
    public static final Opt<Boolean> VERIFY = Opt.flag("--verify", "check every frame against the sequence stream");

    /** {@code --max-frame}. */
    public static final Opt<Integer> MAX_FRAME = Opt.ofInt("--max-frame", FrameFormat.DEFAULT_MAX_FRAME_LENGTH,
            "largest body accepted (default ${DEFAULT-VALUE})");

    /** {@code --json}. */
    public static final Opt<Boolean> JSON = Opt.flag("--json", "print JSON lines instead of text");

    /** {@code --read-timeout}; absent: wait for ever. */
    public static final Opt<Long> READ_TIMEOUT = Opt.ofLong("--read-timeout", null, "tcp and unix: give up with "
            + "exit code 5 when no complete frame has arrived for this many milliseconds, counted from the start, "
            + "connecting included (default: wait for ever)").label("MS");

    /** The options of {@code client}. */
    public static final Options OPTIONS = Options.of("client", List.of(TRANSPORT), ConnectOptions.ALL,
            List.of(STRATEGY, IDLE, MESSAGES, ROUND_MS, WARMUP_MS, JIT_SETTLE, ROUNDS, VERIFY, MAX_FRAME, JSON,
                    READ_TIMEOUT), TlsOptions.ALL);

    /** A command with every option at its default. */
    public ClientCommand() {
        super(OPTIONS);
    }

    @Override
    public Integer call() {
        Transport transport = args.get(TRANSPORT);
        ConnectOptions peer = new ConnectOptions(args);
        Strategies strategy = args.get(STRATEGY);
        Idle idle = args.get(IDLE);
        boolean verify = args.get(VERIFY);
        int maxFrame = args.get(MAX_FRAME);
        boolean json = args.get(JSON);
        Long readTimeout = args.get(READ_TIMEOUT);
        TlsOptions tlsOptions = new TlsOptions(args);
        PrintWriter err = err();
        Rounds plan;
        try {
            FrameFormat.checkMaxFrameLength(maxFrame);
            if (!strategy.supports(transport) && transport != Transport.STDOUT) {
                throw new IllegalArgumentException("--strategy " + strategy + " needs --transport " + strategy.transportNames());
            }
            if (readTimeout != null && (readTimeout < 1 || (transport != Transport.TCP && transport != Transport.UNIX))) {
                throw new IllegalArgumentException("--read-timeout=" + readTimeout + " must be >= 1 and needs "
                        + "--transport tcp or unix");
            }
            plan = rounds();
            if (idle != null && !strategy.polls()) {
                throw new IllegalArgumentException("--idle " + idle + " needs a busy-polling --strategy: "
                        + "wirespeed-spin or native-spin");
            }
        } catch (IllegalArgumentException e) {
            return usage(e.getMessage());
        }
        Source source;
        try {
            TlsSettings tls = null;
            if (tlsOptions.on()) {
                if (!strategy.speaksTls()) {
                    throw new IllegalArgumentException("--tls needs --strategy loop, netty-nio, netty-epoll or "
                            + "netty-uring: the strategies that open their own connection");
                }
                tls = tlsOptions.client();
            }
            source = switch (transport) {
                case TCP -> Sources.tcp(peer.tcp(Defaults.STREAM_PORT), tls);
                case UNIX -> Sources.unix(peer.path(transport), tls);
                case FILE -> Sources.file(peer.path(transport));
                case STDIN -> Sources.stdin();
                default -> throw new IllegalArgumentException("--transport " + transport
                        + " is not a client transport: use tcp, unix, stdin or file");
            };
        } catch (IllegalArgumentException e) {
            return usage(e.getMessage());
        } catch (IOException | GeneralSecurityException e) {
            return usage("--trust: " + e.getMessage());
        }
        Receiver receiver = new Receiver(verify ? FrameCheck.sequence() : null, plan, json, out());
        int code = ExitCode.OK;
        String problem = null;
        IdleWatchdog watchdog = readTimeout == null ? null : new IdleWatchdog(receiver, readTimeout, source);
        try (source) {
            strategy.create((idle == null ? Idle.SPIN : idle).strategy()).read(source, receiver, maxFrame);
        } catch (CorruptFrameException | FrameTooLongException | TruncatedFrameException
                | NettyClient.IncompleteFrameException | NettyClient.BadFrameException e) {
            code = ExitCode.BAD_INPUT;
            problem = e.getMessage();
        } catch (SequenceMismatchException e) {
            code = ExitCode.VERIFY_FAILED;
            problem = "verification failed: " + e.getMessage();
        } catch (IOException e) {
            code = ExitCode.IO_FAILURE;
            problem = "I/O failure: " + e;
        }
        if (watchdog != null) {
            watchdog.close();
            if (watchdog.fired()) { // whatever the abort made the read throw, or a clean-looking end
                code = ExitCode.IO_FAILURE;
                problem = "read timed out: no complete frame for " + readTimeout + " ms";
            }
        }
        receiver.finish(code == ExitCode.OK);
        if (problem != null) {
            return fail(code, problem + " (after " + receiver.frames() + " complete frames, " + receiver.bytes()
                    + " bytes)");
        }
        return code;
    }

    /** {@return the rounds the options ask for} @throws IllegalArgumentException naming the values */
    private Rounds rounds() {
        Long messages = args.get(MESSAGES);
        Long roundMs = args.get(ROUND_MS);
        Long warmupMs = args.get(WARMUP_MS);
        boolean jitSettle = args.get(JIT_SETTLE);
        long rounds = args.get(ROUNDS);
        if (rounds < 0) {
            throw new IllegalArgumentException("--rounds=" + rounds + " must be >= 0");
        }
        if (roundMs == null) {
            if (warmupMs != null) {
                throw new IllegalArgumentException("--warmup-ms=" + warmupMs + " needs --round-ms");
            }
            long frames = messages == null ? DEFAULT_MESSAGES : messages;
            if (frames < 1) {
                throw new IllegalArgumentException("--messages=" + frames + " must be >= 1");
            }
            return new Rounds.ByFrames(frames, rounds);
        }
        if (messages != null) {
            throw new IllegalArgumentException("--messages=" + messages + " and --round-ms=" + roundMs
                    + ": give one of them");
        }
        long warmup = warmupMs == null ? 0 : warmupMs;
        if (roundMs < 1 || roundMs > 3_600_000 || warmup < 0 || warmup > 3_600_000) {
            throw new IllegalArgumentException("--round-ms=" + roundMs + " must be 1 to 3600000 and --warmup-ms="
                    + warmup + " 0 to 3600000");
        }
        return new Rounds.ByTime(roundMs * 1_000_000, warmup * 1_000_000, jitSettle, rounds);
    }
}
