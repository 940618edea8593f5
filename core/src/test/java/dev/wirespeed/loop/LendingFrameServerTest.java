package dev.wirespeed.loop;

import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.testing.FrameServerContract;

/**
 * The server's contract on a transport that lends its received bytes ({@link LendingTestTransport}):
 * frames parsed in place, split anywhere between lent pieces, and every piece scribbled over once
 * given back.
 */
class LendingFrameServerTest extends FrameServerContract {
    @Override
    protected LoopTransport transport() {
        return new LendingTestTransport(SEED.value()); // the contract's seed, printed and replayable
    }
}
