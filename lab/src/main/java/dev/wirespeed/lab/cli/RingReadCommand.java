package dev.wirespeed.lab.cli;

import dev.wirespeed.lab.ExitCode;
import dev.wirespeed.lab.client.FrameCheck;
import dev.wirespeed.lab.client.Receiver;
import dev.wirespeed.lab.client.Rounds;
import dev.wirespeed.linux.Futex;
import dev.wirespeed.shm.CorruptRingException;
import dev.wirespeed.shm.PeerGoneException;
import dev.wirespeed.shm.RingReader;
import dev.wirespeed.shm.RingSleep;
import dev.wirespeed.shm.SharedRing;
import dev.wirespeed.testkit.SequenceMismatchException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code wirespeed ring-read}: frames out of a shared ring, printed per round as {@code client} does. */
@Command(name = "ring-read", mixinStandardHelpOptions = true,
        description = {"Reads the frames of a shared ring that 'wirespeed ring-write' made, each a view of the ring's "
                + "memory (no copy, no system call), and prints per round of --messages frames 'Time for N msg: T; "
                + "speed: X msg/s; Y MB/s', as 'wirespeed client' does, then a summary line; until the writer closes "
                + "its end (after its last frame) or --rounds are done.",
            "Exit codes as 'wirespeed client': 0, 3 a broken ring, 4 --verify found an unexpected frame, 5 the writer "
                + "died without closing its end."})
public final class RingReadCommand implements Callable<Integer> {
    /** A command whose options picocli sets. */
    public RingReadCommand() {
    }

    @Spec
    CommandSpec spec;

    @Option(names = "--path", defaultValue = "/dev/shm/wirespeed.ring", description = "the ring's file "
            + "(default ${DEFAULT-VALUE})")
    Path path;

    @Option(names = "--messages", defaultValue = "1000000", description = "frames per round (default "
            + "${DEFAULT-VALUE})")
    long messages;

    @Option(names = "--rounds", defaultValue = "0", description = "rounds before stopping; 0: until the writer "
            + "closes its end")
    long rounds;

    @Option(names = "--verify", description = "check every frame against the sequence stream")
    boolean verify;

    @Option(names = "--json", description = "print JSON lines instead of text")
    boolean json;

    @Option(names = "--sleep", defaultValue = "futex", description = "what the reader does when the ring is empty: "
            + "futex (sleeps in the kernel until the writer wakes it: 'ring-write --wake futex'), polling (sleeps in "
            + "steps of 50 us) or spin (reads again at once) (default ${DEFAULT-VALUE})")
    String sleep;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        RingSleep sleeps;
        try {
            if (messages < 1 || rounds < 0) {
                throw new IllegalArgumentException("--messages=" + messages + " must be >= 1 and --rounds=" + rounds
                        + " >= 0");
            }
            sleeps = switch (sleep) {
                case "futex" -> Futex.create();
                case "polling" -> RingSleep.polling();
                case "spin" -> null;
                default -> throw new IllegalArgumentException("--sleep=" + sleep + ": futex, polling or spin");
            };
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            err.println("wirespeed ring-read: " + e.getMessage());
            return ExitCode.USAGE;
        }
        Receiver receiver = new Receiver(verify ? FrameCheck.sequence() : null, new Rounds.ByFrames(messages, rounds),
                json, spec.commandLine().getOut());
        int code = ExitCode.OK;
        String problem = null;
        try (SharedRing ring = SharedRing.open(path)) {
            RingReader reader = ring.reader();
            Duration wait = sleeps == null ? Duration.ZERO : Duration.ofSeconds(1);
            RingSleep sleepFor = sleeps == null ? RingSleep.polling() : sleeps;
            while (!receiver.done()) {
                int n = reader.take(receiver::onFrame, Math.min(receiver.framesToNextCheck(), 1024), sleepFor, wait);
                if (n < 0) {
                    break; // the writer closed its end after its last frame
                }
                if (n == 0 && sleeps == null) {
                    Thread.onSpinWait();
                }
            }
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
        receiver.finish(code == ExitCode.OK);
        if (problem != null) {
            err.println("wirespeed ring-read: " + problem + " (after " + receiver.frames() + " complete frames, "
                    + receiver.bytes() + " bytes)");
            err.flush();
        }
        return code;
    }
}
