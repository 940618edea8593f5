package dev.wirespeed.loop;

import dev.wirespeed.testing.FrameServerContract;

/**
 * The server's contract on a transport that lends its received bytes ({@link LendingTestTransport}):
 * frames parsed in place, split anywhere between lent pieces, and every piece scribbled over once
 * given back.
 */
class LendingFrameServerTest extends FrameServerContract {
    @Override
    protected FrameServer.Builder backend(FrameServer.Builder builder) {
        long seed = System.nanoTime();
        System.out.println("LendingTestTransport seed=" + seed);
        return builder.transport(new LendingTestTransport(seed));
    }
}
