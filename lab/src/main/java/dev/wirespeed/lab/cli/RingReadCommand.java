package dev.wirespeed.lab.cli;

import dev.wirespeed.lab.ExitCode;
import dev.wirespeed.lab.client.FrameCheck;
import dev.wirespeed.lab.client.Receiver;
import dev.wirespeed.lab.client.Rounds;
import dev.wirespeed.lab.result.ChildReports;
import dev.wirespeed.frame.FrameHandler;
import dev.wirespeed.lab.shm.Inbound;
import dev.wirespeed.lab.shm.Layout;
import dev.wirespeed.lab.shm.ShmImpl;
import dev.wirespeed.lab.shm.ShmLink;
import dev.wirespeed.lab.shm.Sleep;
import dev.wirespeed.lab.shm.Wakes;
import dev.wirespeed.lab.shm.WriterStreams;
import dev.wirespeed.shm.CorruptRingException;
import dev.wirespeed.shm.PeerGoneException;
import dev.wirespeed.testkit.SequenceMismatchException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.Command;

/** {@code wirespeed ring-read}: frames out of a shared ring, printed per round as {@code client} does. */
@Command(name = "ring-read", mixinStandardHelpOptions = true,
        description = {"Reads the frames of a shared ring that 'wirespeed ring-write' made, each a view of the ring's "
                + "memory (no copy, no system call), and prints per round of --messages frames 'Time for N msg: T; "
                + "speed: X msg/s; Y MB/s', as 'wirespeed client' does, then a summary line; until the writer closes "
                + "its end (after its last frame) or --rounds are done. --impl agrona and aeron read what 'ring-write "
                + "--impl' of the same name writes. With --wakes it prints instead, once the writer closed its end, how "
                + "long each frame that 'ring-write --idle-ms' sent after an idle period took to reach it, and the CPU "
                + "this process used while nothing came.",
            "With --layout many-to-one it makes the ring (the library's ManyToOneRing; with --impl agrona Agrona's "
                + "ManyToOneRingBuffer; with --impl aeron a stream whose media driver it embeds), prints 'ring at "
                + "PATH' on standard error, and reads what --writers writers ('wirespeed ring-write --layout "
                + "many-to-one --writer W', W from 0) write into it, each writer's stream checked apart with "
                + "--verify; its rounds count from the first frame after every writer's first; it ends after "
                + "--rounds, or once every writer sent its end (ring-write --count). 'wirespeed ring-read --layout "
                + "many-to-one --writers 2 --verify' with 'wirespeed ring-write --layout many-to-one --writer 0 "
                + "--count 1000000' and '--writer 1' beside it, for example.",
            "Exit codes as 'wirespeed client': 0, 3 a broken ring, 4 --verify found an unexpected frame, 5 the writer "
                + "died without closing its end."})
public final class RingReadCommand extends DirectCommand {
    /** Frames {@link WriterStreams.Check} checked before the receiver counts them. */
    private static final FrameCheck CHECKED = new FrameCheck() {
        @Override
        public void check(int type, byte[] body, int offset, int length) {
            // checked already
        }

        @Override
        public void check(int type, java.nio.ByteBuffer body) {
            // checked already
        }
    };

    /** A take's wait with {@code --wakes}, as shmring's read-wakes waits: longer than the lab's idle periods. */
    static final Duration WAKES_TAKE = Duration.ofSeconds(60);

    /** {@code --impl}. */
    public static final Opt<ShmImpl> IMPL = Opt.ofName("--impl", "--impl", ShmImpl.values(), ShmImpl.WIRESPEED,
            "wirespeed (the library's SharedRing), agrona or aeron (default ${DEFAULT-VALUE})");

    /** {@code --layout}. */
    public static final Opt<Layout> LAYOUT = Opt.ofName("--layout", "--layout", Layout.values(), Layout.ONE_TO_ONE,
            "one-to-one (one writer, which made the ring) or many-to-one (this reader makes the ring, and --writers "
            + "write into it) (default ${DEFAULT-VALUE})");

    /** {@code --writers}. */
    public static final Opt<Integer> WRITERS = Opt.ofInt("--writers", 1, "with --layout many-to-one, the writers, "
            + "numbered from 0 (default ${DEFAULT-VALUE})");

    /**
     * {@code --capacity}; absent: {@link RingWriteCommand#DEFAULT_CAPACITY}, and the only way a one-to-one reader
     * takes it, as its writer makes the ring.
     */
    public static final Opt<Integer> CAPACITY = Opt.ofInt("--capacity", null, "with --layout many-to-one, bytes of "
            + "frames the ring it makes holds: a power of two from 4096 to 1073741824 (default "
            + RingWriteCommand.DEFAULT_CAPACITY + "); Aeron's streams take its driver's default");

    /** {@code --replace}. */
    public static final Opt<Boolean> REPLACE = Opt.flag("--replace", "with --layout many-to-one, delete a file "
            + "already at --path first");

    /** {@code --path}. */
    public static final Opt<Path> PATH = Opt.ofPath("--path", Path.of("/dev/shm/wirespeed.ring"), "the ring's file "
            + "(default ${DEFAULT-VALUE})");

    /** {@code --messages}. */
    public static final Opt<Long> MESSAGES = Opt.ofLong("--messages", 1_000_000L, "frames per round (default "
            + "${DEFAULT-VALUE})");

    /** {@code --rounds}. */
    public static final Opt<Long> ROUNDS = Opt.ofLong("--rounds", 0L, "rounds before stopping; 0: until the writer "
            + "closes its end");

    /** {@code --verify}. */
    public static final Opt<Boolean> VERIFY = Opt.flag("--verify", "check every frame against the sequence stream "
            + "(with --layout many-to-one, against its writer's stream, each writer's apart)");

    /** {@code --json}. */
    public static final Opt<Boolean> JSON = Opt.flag("--json", "print JSON lines instead of text");

    /** {@code --sleep}; absent: the implementation's parking. */
    public static final Opt<Sleep> SLEEP = Opt.ofName("--sleep", "--sleep", Sleep.values(), null, "what the reader "
            + "does when the ring is empty: futex (sleeps in the kernel until the writer wakes it: 'ring-write --wake "
            + "futex'; wirespeed's default), polling (sleeps in steps of 50 us; wirespeed), backoff (Agrona's backoff: "
            + "spins, yields, then parks up to 1 ms; agrona's and aeron's default) or spin (reads again at once, "
            + "yielding every 8th look)");

    /** {@code --wakes}. */
    public static final Opt<Boolean> WAKES = Opt.flag("--wakes", "report the wake-ups after the writer's idle periods "
            + "(ring-write --idle-ms) as one JSON line, instead of rounds");

    /** The options of {@code ring-read}. */
    public static final Options OPTIONS = Options.of("ring-read",
            List.of(IMPL, LAYOUT, WRITERS, CAPACITY, REPLACE, PATH, MESSAGES, ROUNDS, VERIFY, JSON, SLEEP, WAKES));

    /** A command with every option at its default. */
    public RingReadCommand() {
        super(OPTIONS);
    }

    @Override
    public Integer call() {
        ShmImpl impl = args.get(IMPL);
        Layout layout = args.get(LAYOUT);
        int writers = args.get(WRITERS);
        Integer capacity = args.get(CAPACITY);
        boolean replace = args.get(REPLACE);
        Path path = args.get(PATH);
        long messages = args.get(MESSAGES);
        long rounds = args.get(ROUNDS);
        boolean verify = args.get(VERIFY);
        boolean json = args.get(JSON);
        Sleep sleep = args.get(SLEEP);
        boolean wakes = args.get(WAKES);
        PrintWriter err = err();
        Sleep sleeps = sleep == null ? impl.parking() : sleep;
        try {
            if (messages < 1 || rounds < 0) {
                throw new IllegalArgumentException("--messages=" + messages + " must be >= 1 and --rounds=" + rounds
                        + " >= 0");
            }
            boolean manyOptions = writers != 1 || replace || capacity != null;
            if (layout == Layout.MANY_TO_ONE ? writers < 1 || wakes : manyOptions) {
                throw new IllegalArgumentException("--writers=" + writers + " must be >= 1, and it, --capacity and "
                        + "--replace are for --layout many-to-one, which takes no --wakes; --layout " + layout);
            }
            if (sleeps == Sleep.FUTEX) {
                dev.wirespeed.linux.Futex.create(); // refused here, off Linux
            }
            if (replace) {
                Files.deleteIfExists(path);
            }
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            return usage(e.getMessage());
        } catch (IOException e) {
            return fail(ExitCode.IO_FAILURE, "--replace: " + e);
        }
        FrameCheck check = !verify ? null : layout == Layout.ONE_TO_ONE ? FrameCheck.sequence() : CHECKED;
        Receiver receiver = new Receiver(check, new Rounds.ByFrames(messages, rounds), json, out());
        Wakes woken = wakes ? new Wakes() : null;
        int code = ExitCode.OK;
        String problem = null;
        boolean many = layout == Layout.MANY_TO_ONE;
        int bytes = capacity == null ? RingWriteCommand.DEFAULT_CAPACITY : capacity;
        try (ShmLink link = impl.open(path, many, many ? bytes : 0, sleeps, layout);
                Inbound reader = link.inbound("")) {
            // With --wakes, a take waits longer than any idle period of the writer's: a take that ended as a
            // frame came would start the next one spinning, and find the frame without a wake-up.
            Duration wait = woken != null ? WAKES_TAKE : Duration.ofSeconds(1);
            if (many) {
                err.println("ring at " + path);
                err.flush();
                readMany(reader, receiver);
            } else if (woken != null) {
                while (reader.await(woken, 1024, wait) >= 0) {
                    // until the writer closes its end
                }
            } else {
                while (!receiver.done()) {
                    if (reader.await(receiver::onFrame, Math.min(receiver.framesToNextCheck(), 1024), wait) < 0) {
                        break; // the writer closed its end after its last frame
                    }
                }
            }
        } catch (IllegalArgumentException e) {
            return usage(e.getMessage());
        } catch (CorruptRingException e) {
            code = ExitCode.BAD_INPUT;
            problem = e.getMessage();
        } catch (SequenceMismatchException | WriterStreams.MismatchException e) {
            code = ExitCode.VERIFY_FAILED;
            problem = "verification failed: " + e.getMessage();
        } catch (PeerGoneException e) {
            code = ExitCode.IO_FAILURE;
            problem = e.getMessage();
        } catch (IOException | IllegalStateException e) {
            code = ExitCode.IO_FAILURE;
            problem = "I/O failure: " + e;
        }
        if (woken != null) {
            if (code == ExitCode.OK && woken.count() > 0) {
                out().println(ChildReports.line(woken.report()));
                out().flush();
            } else if (code == ExitCode.OK) {
                code = ExitCode.IO_FAILURE;
                problem = "no wake-up to report: the writer sent fewer than 2 frames after an idle period "
                        + "(ring-write --idle-ms MS --count N, N >= 2)";
            }
        } else {
            receiver.finish(code == ExitCode.OK);
        }
        if (problem != null) {
            return fail(code, problem + " (after " + receiver.frames() + " complete frames, " + receiver.bytes()
                    + " bytes)");
        }
        return code;
    }

    /**
     * Every writer's frames, each writer's stream checked apart, counted in rounds from the first frame after
     * every writer's first (a writer's process starts later than another's), until the rounds are done or
     * every writer sent its end.
     */
    private void readMany(Inbound reader, Receiver receiver) throws IOException {
        WriterStreams.Check check = new WriterStreams.Check(args.get(WRITERS), args.get(VERIFY));
        boolean[] counting = {false};
        FrameHandler counted = (type, body) -> {
            if (counting[0]) {
                receiver.onFrame(type, body);
            } else {
                counting[0] = check.allStarted();
            }
        };
        FrameHandler handler = (type, body) -> check.onFrame(type, body, counted);
        Duration wait = Duration.ofSeconds(1);
        while (!receiver.done() && !check.allEnded()) {
            reader.await(handler, Math.min(receiver.framesToNextCheck(), 1024), wait);
        }
    }
}
