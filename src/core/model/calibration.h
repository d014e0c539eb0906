#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

// One ok evaluation's latency with what produced it, as the workspace holds it (CalibrationQuery).
struct CalibrationRun
{
    QString sourceHash; // KernelNormalizer::hash: the same kernel across sessions
    QString task;
    QString target;
    QString kernelClass; // the roofline's bound of the nkisim run ("memory", "matmul", "vector"); "" unknown
    bool onHardware = false;
    QString host; // without the slot
    QString sdk;
    double latencyMs = 0;
};

// One kernel measured on both: nkisim's prediction against a device's measurement (each the median of its
// runs). error() is the prediction's relative error, signed: -0.4 means nkisim said 40 % less than the
// device.
struct CalibrationPair
{
    QString sourceHash;
    QString task;
    QString target;
    QString kernelClass;
    QString host;
    QString sdk;
    double predictedMs = 0;
    double measuredMs = 0;
    int predictedRuns = 0;
    int measuredRuns = 0;

    double error() const { return (predictedMs - measuredMs) / measuredMs; }
    double ratio() const { return measuredMs / predictedMs; } // device time per nkisim time
};

// The pairs of one kernel class on one target: how far nkisim is off there.
struct CalibrationGroup
{
    QString kernelClass;
    QString target;
    int kernels = 0;
    double medianAbsError = 0; // median of |error()| over the group's kernels
    double worstAbsError = 0;  // the largest |error()|
    double minRatio = 0;
    double maxRatio = 0;
    // How much nkisim's ranking of two kernels of this group can be off: the spread of their device/nkisim
    // ratios (max/min - 1). The two-stage search sends a kernel to the device when nkisim puts it within this
    // margin of the beam; with fewer than two kernels there is no spread to measure yet.
    std::optional<double> rankingMargin() const;
};

// nkisim against the hardware, for every kernel measured on both (issue 34): what tells a user how far to
// trust nkisim, and what tells the two-stage search its margin. Pure: built from the runs a query read.
class Calibration
{
public:
    // The margin used for a kind of kernel with no calibration yet (fewer than two kernels measured on
    // both): 100 %. What matters is not one kind's error but how far two kernels' device/nkisim ratios can
    // differ, since the confirmation compares a kernel with the beam's slowest, which may be of another kind.
    // The only device here, the Trainium stand-in (tests/fixtures/runner/fake_nki_current/nrtpy/
    // standin_latency.py), scales nkisim's time by 1.0 (TensorE-bound) to 1.8 (DMA-bound) and adds the same
    // launch overhead to every kernel, which cancels when two kernels are compared: ratios 1.8 apart, a margin
    // of at least 80 %. The earlier 50 % would have left a DMA-bound kernel that the device puts in the beam
    // unconfirmed. 100 % covers the stand-in with room and errs toward confirming, as an uncalibrated search
    // should; calibration (`accelopt calibration`) narrows it per kind once kernels were measured on both.
    static constexpr double defaultMargin = 1.0;

    // Pairs the runs by kernel (source hash) and target; with `host`, only that host's device runs count.
    static Calibration fromRuns(const QList<CalibrationRun> &runs, const QString &host = {});

    const QList<CalibrationPair> &pairs() const { return m_pairs; }
    const QList<CalibrationGroup> &groups() const { return m_groups; }
    std::optional<CalibrationGroup> group(const QString &kernelClass, const QString &target) const;
    // How much faster than nkisim says a kernel of this kind may turn out on the device, relative to any
    // other kernel of the target: the largest device/nkisim ratio of the target over the smallest of this
    // kind, minus 1 (a kernel of this kind beats another on the device only if its nkisim latency is within
    // that factor). defaultMargin while the kind has fewer than two kernels measured on both.
    double margin(const QString &kernelClass, const QString &target) const;
    QJsonObject toJson() const;

    static double median(QList<double> values);

private:
    QList<CalibrationPair> m_pairs;
    QList<CalibrationGroup> m_groups;
};
