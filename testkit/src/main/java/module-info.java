/**
 * wirespeed testkit: the wire protocol's sequence stream, a deterministic stream of frames, and a
 * verifier that checks a received stream against it frame by frame, naming the first byte that
 * differs. It tests transports and drives benchmarks; it is kept out of core's API, which carries
 * only what production code calls.
 */
module dev.wirespeed.testkit {
    requires transitive dev.wirespeed.core;
    exports dev.wirespeed.testkit;
}
