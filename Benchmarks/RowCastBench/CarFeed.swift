/// The benchmark's messages: the car feed of the issue, `product` and `advertising` items of
/// about 250 bytes, spread over several feeds and sections.
enum CarFeed {
    static let feeds = 4
    static let sections = 3

    /// The upsert request for item number `index` (ids unique per run through `run`) into one
    /// of `feedCount` feeds; a `priceChange` other than 0 makes an update of the same item with
    /// another price.
    static func upsert(_ index: Int, run: String, priceChange: Int = 0, feedCount: Int = feeds) -> [UInt8] {
        let feed = "cars\(index % feedCount)"
        let section = "s\(index / feeds % sections)"
        if index % 10 == 9 {
            return Array(
                #"{"op":"upsert","feed":"\#(feed)","item":{"id":"\#(run)-\#(index)","type":"advertising","section":"\#(section)","data":{"name":"Garage sale \#(index)","operatedBy":"Bob's Cars","price":\#(1000 + index % 9000 + priceChange),"image":"https://img.example/ad/\#(index % 997).png","url":"https://ads.example/\#(index)"}}}"#
                    .utf8)
        }
        return Array(
            #"{"op":"upsert","feed":"\#(feed)","item":{"id":"\#(run)-\#(index)","type":"product","section":"\#(section)","data":{"name":"Tesla Model 3 Long Range \#(index)","operatedBy":"Tesla Inc.","price":\#(30000 + index % 20000 + priceChange),"image":"https://img.example/cars/\#(index % 997).png"}}}"#
                .utf8)
    }

    /// How many rows a publication carries: every row object has exactly one "cell" member.
    static func rowCount(in body: [UInt8]) -> Int {
        let pattern: [UInt8] = Array(#""cell":"#.utf8)
        var count = 0
        var index = 0
        let last = body.count - pattern.count
        while index <= last {
            if body[index] == pattern[0] && body[index + 1] == pattern[1] && body[index + 2] == pattern[2]
                && body[index + 3] == pattern[3] && body[index + 4] == pattern[4] && body[index + 5] == pattern[5]
                && body[index + 6] == pattern[6]
            {
                count += 1
                index += pattern.count
            } else {
                index += 1
            }
        }
        return count
    }
}
