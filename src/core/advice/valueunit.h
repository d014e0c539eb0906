#pragma once

#include <QString>
#include <QStringList>

#include <optional>

// How a profile value reads to a person: "2 KiB", "42%", "3.1x". A rule's advice text names the unit after a
// bar ({dma_transfer_average_bytes|bytes}); without one, the value's name decides (the neuron-profile
// suffixes _bytes, _percent, _count, ...), so most templates need none.
class ValueUnit
{
public:
    enum Kind
    {
        Number,      // plain, three significant digits
        Bytes,       // B, KiB, MiB, GiB
        Fraction,    // 0-1 shown as a percentage (neuron-profile's *_percent metrics)
        Percent,     // already 0-100 (percent_of_peak)
        Count,       // a whole number
        Flop,        // FLOP, kFLOP, MFLOP, ...
        FlopPerByte, // arithmetic intensity
        Ratio,       // 3.2x
        Seconds,     // picks s, ms, us or ns
        Milliseconds,
        Nanoseconds,
    };

    static std::optional<Kind> fromName(const QString &name);
    static QStringList names();
    // The unit a value of this name is shown in when the template names none.
    static Kind forValue(const QString &valueName);
    static QString format(double value, Kind kind);
};
