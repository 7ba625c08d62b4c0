/// CRC-32C (Castagnoli), the checksum of each change-log record: it catches a torn or flipped record far better
/// than a sum, and it is the one ext4, iSCSI and SCTP use. Table-driven, a byte at a time: records are small, and
/// a whole log is checked once, at open.
enum CRC32C {
    static func checksum<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc = table[Int(UInt8(truncatingIfNeeded: crc) ^ byte)] ^ (crc >> 8)
        }
        return crc ^ 0xFFFF_FFFF
    }

    /// The reflected polynomial 0x1EDC6F41.
    private static let table: [UInt32] = (0..<256).map { index in
        var crc = UInt32(index)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
        return crc
    }
}
