package dev.wirespeed.lab.experiments.stream;

import dev.wirespeed.lab.client.Strategies;
import dev.wirespeed.lab.result.Role;

/** One row of a stream table: who writes the stream and who reads it. */
public sealed interface StreamCase {
    /** The larger pipe of the pipe experiment's extra rows: Linux's default {@code pipe-max-size}. */
    int BIG_PIPE = 1 << 20;

    /** {@return the row's name in tables and results} */
    String name();

    /** {@return whose code reads the stream} */
    Role role();

    /** {@return the pipe size the row asks for, or 0 for the default pipe (and every socket)} */
    int pipeSize();

    /** Who writes the stream a Java client reads. */
    enum Writer {
        /** The Java server, batching frames into 512 KiB writes. */
        JAVA(""),
        /** The Java server writing each frame with its own call (the first article's "Note 1"). */
        JAVA_PER_FRAME(" (server writes per frame)"),
        /** The C writer: tells the reader's cost from the writer's. */
        C(" <- C writer");

        private final String suffix;

        Writer(String suffix) {
            this.suffix = suffix;
        }
    }

    /**
     * A client strategy reading a writer.
     *
     * @param strategy the client strategy
     * @param pipeSize the pipe's size, 0 to leave it as it is
     * @param writer who writes
     */
    record Java(Strategies strategy, int pipeSize, Writer writer) implements StreamCase {
        /**
         * A strategy reading the batching Java server through the default pipe or a socket.
         *
         * @param strategy the client strategy
         */
        public Java(Strategies strategy) {
            this(strategy, 0, Writer.JAVA);
        }

        @Override
        public String name() {
            return strategy.cliName() + (pipeSize > 0 ? " (1 MiB pipe)" : "") + writer.suffix;
        }

        @Override
        public Role role() {
            return strategy.role();
        }
    }

    /**
     * The C writer and the C reader: the ceiling.
     *
     * @param poll whether the reader busy-polls instead of blocking
     * @param pipeSize the pipe's size, 0 to leave it as it is
     */
    record Ceiling(boolean poll, int pipeSize) implements StreamCase {
        @Override
        public String name() {
            return "C read(2) " + (poll ? "busy-poll" : "blocking") + (pipeSize > 0 ? " (1 MiB pipe)" : "");
        }

        @Override
        public Role role() {
            return Role.CEILING;
        }
    }

    /** {@code iperf3} over TCP: a ceiling in MB/s only. */
    record Iperf() implements StreamCase {
        @Override
        public String name() {
            return "iperf3";
        }

        @Override
        public Role role() {
            return Role.CEILING;
        }

        @Override
        public int pipeSize() {
            return 0;
        }
    }
}
