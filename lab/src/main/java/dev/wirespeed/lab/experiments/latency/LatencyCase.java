package dev.wirespeed.lab.experiments.latency;

import dev.wirespeed.lab.pingpong.Impl;
import dev.wirespeed.lab.Ring;
import dev.wirespeed.lab.pingpong.SocketApi;
import dev.wirespeed.lab.result.Role;

/** One row of the latency table: how ping and echo talk. */
public sealed interface LatencyCase {
    /** {@return the row's name in tables and results} */
    String name();

    /** {@return whether both ends busy-poll instead of blocking} */
    boolean spin();

    /** {@return whose code pings} */
    Role role();

    /**
     * {@code wirespeed ping --impl} against {@code wirespeed echo} of the matching kind.
     *
     * @param impl how ping talks to its socket
     */
    record Java(Impl impl) implements LatencyCase {
        @Override
        public String name() {
            return impl.cliName();
        }

        @Override
        public boolean spin() {
            return impl.spin();
        }

        @Override
        public Role role() {
            return impl.netty() != null ? Role.PEER : impl.library() ? Role.LIBRARY : Role.JDK;
        }
    }

    /**
     * {@code wirespeed ping --impl uring|uring-spin --ring}: the io_uring ping with its ring set up another
     * way than the library's default, against the echo of {@link Java} for the same {@code impl}.
     *
     * @param impl {@link Impl#URING} or {@link Impl#URING_SPIN}
     * @param ring how the ping's ring is set up
     */
    record RingSetup(Impl impl, Ring ring) implements LatencyCase {
        /** Checks that {@code impl} reads through io_uring. */
        public RingSetup {
            if (impl.api() != SocketApi.URING) {
                throw new IllegalArgumentException("--ring " + ring + " needs an io_uring ping, not " + impl);
            }
        }

        @Override
        public String name() {
            return impl.cliName() + " --ring " + ring.cliName();
        }

        @Override
        public boolean spin() {
            return impl.spin();
        }

        @Override
        public Role role() {
            return Role.LIBRARY;
        }
    }

    /**
     * {@code wirespeed ping --impl --rate}: open loop, frame {@code i} due at {@code i / rate} seconds
     * and its latency counted from then, so a stall is charged to every frame it delays.
     *
     * @param impl how ping talks to its socket (echo waits the same way)
     * @param rate frames per second
     */
    record OpenLoop(Impl impl, int rate) implements LatencyCase {
        @Override
        public String name() {
            return String.format(java.util.Locale.ROOT, "%s, open loop at %,d/s", impl.cliName(), rate);
        }

        @Override
        public boolean spin() {
            return impl.spin();
        }

        @Override
        public Role role() {
            return new Java(impl).role();
        }
    }

    /**
     * The C ping-pong busy-polling at both ends, open loop as {@link OpenLoop}: the ceiling of the
     * open-loop rows, against the closed-loop busy-polling row's echo.
     *
     * @param rate frames per second
     */
    record COpenLoop(int rate) implements LatencyCase {
        @Override
        public String name() {
            return String.format(java.util.Locale.ROOT, "C ping-pong busy-poll, open loop at %,d/s", rate);
        }

        @Override
        public boolean spin() {
            return true;
        }

        @Override
        public Role role() {
            return Role.CEILING;
        }
    }

    /**
     * The C ping-pong, blocking or busy-polling at both ends.
     *
     * @param spin whether both ends busy-poll
     */
    record C(boolean spin) implements LatencyCase {
        @Override
        public String name() {
            return spin ? "C ping-pong busy-poll" : "C ping-pong blocking";
        }

        @Override
        public Role role() {
            return Role.CEILING;
        }
    }
}
