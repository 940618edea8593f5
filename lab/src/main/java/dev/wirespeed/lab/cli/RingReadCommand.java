package dev.wirespeed.lab.cli;

import dev.wirespeed.lab.ExitCode;
import dev.wirespeed.lab.client.FrameCheck;
import dev.wirespeed.lab.client.Receiver;
import dev.wirespeed.lab.client.Rounds;
import dev.wirespeed.lab.result.ChildReports;
import dev.wirespeed.lab.shm.Inbound;
import dev.wirespeed.lab.shm.ShmImpl;
import dev.wirespeed.lab.shm.ShmLink;
import dev.wirespeed.lab.shm.Sleep;
import dev.wirespeed.lab.shm.Wakes;
import dev.wirespeed.shm.CorruptRingException;
import dev.wirespeed.shm.PeerGoneException;
import dev.wirespeed.testkit.SequenceMismatchException;
import java.io.IOException;
import java.io.PrintWriter;
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
            "Exit codes as 'wirespeed client': 0, 3 a broken ring, 4 --verify found an unexpected frame, 5 the writer "
                + "died without closing its end."})
public final class RingReadCommand extends DirectCommand {
    /** {@code --impl}. */
    public static final Opt<ShmImpl> IMPL = Opt.ofName("--impl", "--impl", ShmImpl.values(), ShmImpl.WIRESPEED,
            "wirespeed (the library's SharedRing), agrona or aeron (default ${DEFAULT-VALUE})");

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
    public static final Opt<Boolean> VERIFY = Opt.flag("--verify", "check every frame against the sequence stream");

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
            List.of(IMPL, PATH, MESSAGES, ROUNDS, VERIFY, JSON, SLEEP, WAKES));

    /** A command with every option at its default. */
    public RingReadCommand() {
        super(OPTIONS);
    }

    @Override
    public Integer call() {
        ShmImpl impl = args.get(IMPL);
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
            if (sleeps == Sleep.FUTEX) {
                dev.wirespeed.linux.Futex.create(); // refused here, off Linux
            }
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            return usage(e.getMessage());
        }
        Receiver receiver = new Receiver(verify ? FrameCheck.sequence() : null, new Rounds.ByFrames(messages, rounds),
                json, out());
        Wakes woken = wakes ? new Wakes() : null;
        int code = ExitCode.OK;
        String problem = null;
        try (ShmLink link = impl.open(path, false, 0, sleeps); Inbound reader = link.inbound("")) {
            Duration wait = Duration.ofSeconds(1);
            if (woken != null) {
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
        } catch (SequenceMismatchException e) {
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
}
