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
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

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
public final class RingPingCommand implements Callable<Integer> {
    /** A command whose options picocli sets. */
    public RingPingCommand() {
    }

    @Spec
    CommandSpec spec;

    @Option(names = "--impl", defaultValue = "wirespeed", converter = Names.ShmImplName.class,
            description = "wirespeed (the library's SharedRing), agrona or aeron (default ${DEFAULT-VALUE})")
    ShmImpl impl;

    @Option(names = "--path", defaultValue = "/dev/shm/wirespeed.pingpong", description = "the echo's --path "
            + "(default ${DEFAULT-VALUE})")
    Path path;

    @Option(names = "--count", required = true, description = "round trips measured")
    long count;

    @Option(names = "--warmup", defaultValue = "20000", description = "round trips before measuring (default "
            + "${DEFAULT-VALUE})")
    long warmup;

    @Option(names = "--size", defaultValue = "100", description = "body bytes (default ${DEFAULT-VALUE})")
    int size;

    @Option(names = "--rate", defaultValue = "0", description = "frames a second of an open loop; 0: closed loop "
            + "(default)")
    int rate;

    @Option(names = "--json", description = "print one JSON line instead of text")
    boolean json;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        PrintWriter out = spec.commandLine().getOut();
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
            err.println("wirespeed ring-ping: " + e.getMessage());
            return ExitCode.USAGE;
        } catch (CorruptRingException e) {
            err.println("wirespeed ring-ping: " + e.getMessage());
            return ExitCode.BAD_INPUT;
        } catch (SequenceMismatchException e) {
            err.println("wirespeed ring-ping: " + e.getMessage());
            return ExitCode.VERIFY_FAILED;
        } catch (IOException | IllegalStateException e) {
            err.println("wirespeed ring-ping: " + e);
            return ExitCode.IO_FAILURE;
        }
    }
}
