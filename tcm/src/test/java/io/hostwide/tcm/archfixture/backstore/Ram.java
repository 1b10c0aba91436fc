package io.hostwide.tcm.archfixture.backstore;

import io.hostwide.tcm.archfixture.spi.Storage;

/** A backstore: implements the storage SPI (allowed). */
public final class Ram implements Storage {
}
