package io.hostwide.blk.nullb;

import io.hostwide.blk.api.BlockDevice;
import io.hostwide.blk.api.BlockDeviceProvider;

/**
 * {@code null:k=v,...} → a {@link NullDevice} ({@link NullConfig} names the parameters). Registered in
 * META-INF/services like every other device kind, so {@code blk.api} never names the device built on it.
 */
public final class NullDeviceProvider implements BlockDeviceProvider {
    @Override
    public String kind() {
        return "null";
    }

    @Override
    public BlockDevice open(String params) {
        return NullDevice.create(NullConfig.parse(params, NullDevice.nextName()));
    }
}
