package dev.wirespeed.lab.cli;

/** The values more than one command takes for granted. */
final class Defaults {
    /** The TCP port of {@code server}, and of {@code client} when {@code --port} is absent. */
    static final int STREAM_PORT = 22222;

    /** The TCP port of {@code echo}, and of {@code ping} when {@code --port} is absent: apart, so both can run. */
    static final int ECHO_PORT = 22223;

    /** The most {@code --loops}: {@code FrameServer.Builder.loops}'s bound. */
    static final int MAX_LOOPS = 1024;

    private Defaults() {
    }
}
