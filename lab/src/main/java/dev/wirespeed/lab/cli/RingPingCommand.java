package dev.wirespeed.lab.cli;

import dev.wirespeed.lab.ExitCode;
import dev.wirespeed.lab.pingpong.Percentiles;
import dev.wirespeed.lab.result.ChildReport;
import dev.wirespeed.lab.result.ChildReports;
import dev.wirespeed.lab.shm.Inbound;
import dev.wirespeed.lab.shm.Outbound;
import dev.wirespeed.lab.shm.PingPong;
import dev.wirespeed.lab.shm.ShmImpl;
import dev.wirespeed.lab.shm.ShmLink;
import dev.wirespeed.lab.shm.Sleep;
import dev.wirespeed.shm.CorruptRingException;
import dev.wirespeed.testkit.SequenceMismatchException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Command;

/** {@code wirespeed ring-ping}: the ping end of a ping-pong through shared memory, against {@code ring-echo}. */
@Command(name = "ring-ping", mixinStandardHelpOptions = true,
        description = {"Maps the rings (or Aeron's streams) of a running 'wirespeed ring-echo' of the same --impl "
                + "and --path, sends frame i of the sequence stream, busy-polls for it to come back, checks it byte "
                + "for byte, and after --warmup round trips records --count of them; prints the round-trip "
                + "percentiles (HdrHistogram, 3 significant digits) in microseconds. With --rate the loop is open: "
                + "frame i is due i/RATE s after the start and its round trip counts from then (coordinated "
                + "omission corrected).",
            "Exit codes as 'wirespeed ping': 0, 3 a broken ring, 4 a frame came back changed, 5 the echo is not "
                + "there or ended early."})
public final class RingPingCommand extends DirectCommand {
    /** {@code --impl}. */
    public static final Opt<ShmImpl> IMPL = RingReadCommand.IMPL;

    /** {@code --path}. */
    public static final Opt<Path> PATH = Opt.ofPath("--path", Path.of("/dev/shm/wirespeed.pingpong"), "the echo's "
            + "--path (default ${DEFAULT-VALUE})");

    /** {@code --count}. */
    public static final Opt<Long> COUNT = Opt.ofLong("--count", null, "round trips measured").required();

    /** {@code --warmup}. */
    public static final Opt<Long> WARMUP = Opt.ofLong("--warmup", 20_000L, "round trips before measuring (default "
            + "${DEFAULT-VALUE})");

    /** {@code --size}. */
    public static final Opt<Integer> SIZE = Opt.ofInt("--size", 100, "body bytes (default ${DEFAULT-VALUE})");

    /** {@code --rate}. */
    public static final Opt<Integer> RATE = Opt.ofInt("--rate", 0, "frames a second of an open loop; 0: closed loop "
            + "(default)");

    /** {@code --json}. */
    public static final Opt<Boolean> JSON = Opt.flag("--json", "print one JSON line instead of text");

    /** The options of {@code ring-ping}. */
    public static final Options OPTIONS = Options.of("ring-ping", List.of(IMPL, PATH, COUNT, WARMUP, SIZE, RATE, JSON));

    /** A command with every option at its default. */
    public RingPingCommand() {
        super(OPTIONS);
    }

    @Override
    public Integer call() {
        ShmImpl impl = args.get(IMPL);
        Path path = args.get(PATH);
        long count = args.get(COUNT);
        long warmup = args.get(WARMUP);
        int size = args.get(SIZE);
        int rate = args.get(RATE);
        boolean json = args.get(JSON);
        PrintWriter err = err();
        PrintWriter out = out();
        try (ShmLink link = impl.open(path, false, 0, Sleep.SPIN); Outbound ping = link.outbound(PingPong.PING);
                Inbound pong = link.inbound(PingPong.PONG)) {
            if (size > link.maxFrameLength()) {
                throw new IllegalArgumentException("--size=" + size + " is over the maxFrameLength="
                        + link.maxFrameLength() + " of --impl " + impl);
            }
            ChildReport.Latency latency = PingPong.ping(ping, pong, count, warmup, size, rate);
            out.println(json ? ChildReports.line(latency) : Percentiles.text(latency));
            out.flush();
            return ExitCode.OK;
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            return usage(e.getMessage());
        } catch (CorruptRingException e) {
            return fail(ExitCode.BAD_INPUT, e.getMessage());
        } catch (SequenceMismatchException e) {
            return fail(ExitCode.VERIFY_FAILED, e.getMessage());
        } catch (IOException | IllegalStateException e) {
            return fail(ExitCode.IO_FAILURE, e.toString());
        }
    }
}
