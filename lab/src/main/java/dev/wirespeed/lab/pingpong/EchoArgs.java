package dev.wirespeed.lab.pingpong;

import dev.wirespeed.lab.Idle;
import dev.wirespeed.lab.Ring;
import dev.wirespeed.lab.Threads;
import dev.wirespeed.lab.cli.Args;
import dev.wirespeed.lab.cli.EchoCommand;

/**
 * The options of a {@code wirespeed echo} that the lab starts, after its transport and address: which
 * echo serves, as the experiments name it; {@link #on} writes them into the echo's line.
 *
 * @param impl what serves the connections
 * @param spin whether connections are non-blocking and busy-polled
 * @param idle with {@code spin}, what they do between empty calls, or null for the default
 * @param loop whether event loops serve every connection rather than a thread each
 * @param ring with {@code loop} over io_uring, how each loop's ring is set up
 * @param threads without {@code loop}, what runs each connection
 * @param jfr with {@code loop}, whether the server's JFR events are on
 */
public record EchoArgs(EchoImpl impl, boolean spin, Idle idle, boolean loop, Ring ring, Threads threads, boolean jfr) {
    /**
     * {@return an echo of {@code impl}, blocking, a platform thread per connection}
     *
     * @param impl what serves the connections
     */
    public static EchoArgs of(EchoImpl impl) {
        return new EchoArgs(impl, false, null, false, Ring.DEFAULT, Threads.PLATFORM, false);
    }

    /** {@return this echo, busy-polling with the default idle strategy} */
    public EchoArgs withSpin() {
        return new EchoArgs(impl, true, idle, loop, ring, threads, jfr);
    }

    /**
     * {@return this echo, busy-polling with {@code idle}}
     *
     * @param idle what connections do between empty calls
     */
    public EchoArgs withSpin(Idle idle) {
        return new EchoArgs(impl, true, idle, loop, ring, threads, jfr);
    }

    /** {@return this echo on event loops} */
    public EchoArgs onLoops() {
        return new EchoArgs(impl, spin, idle, true, ring, threads, jfr);
    }

    /**
     * {@return this echo on event loops whose rings are set up as {@code ring} says}
     *
     * @param ring the ring setup
     */
    public EchoArgs onLoops(Ring ring) {
        return new EchoArgs(impl, spin, idle, true, ring, threads, jfr);
    }

    /**
     * {@return this echo, each connection on a thread of this kind}
     *
     * @param threads the kind
     */
    public EchoArgs withThreads(Threads threads) {
        return new EchoArgs(impl, spin, idle, loop, ring, threads, jfr);
    }

    /** {@return this echo with its JFR events on} */
    public EchoArgs withJfr() {
        return new EchoArgs(impl, spin, idle, loop, ring, threads, true);
    }

    /**
     * {@return a {@code wirespeed echo} line serving as this echo}
     *
     * @param echo the line, its transport and address given
     */
    public Args on(Args echo) {
        return echo.with(EchoCommand.IMPL, impl).with(EchoCommand.SPIN, spin).with(EchoCommand.IDLE, idle)
                .with(EchoCommand.LOOP, loop).with(EchoCommand.RING, ring).with(EchoCommand.THREADS, threads)
                .with(EchoCommand.JFR, jfr);
    }
}
