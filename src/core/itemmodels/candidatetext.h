#pragma once

#include "itemmodels/searchstate.h"

#include <QString>
#include <QVariant>

// How a candidate reads in the Search dock's tree and table, written once for both.
namespace CandidateText {

enum class Column
{
    Kernel, // plan title, or what the kernel is (baseline, fix round)
    Iteration,
    Kind, // baseline, executor, fix 1, ...
    Status,
    Latency, // mean, ms
    Speedup, // over the baseline
    PercentOfPeak,
    Bound,
    Id,
};

QString header(Column column);
QVariant display(const SearchState &state, const SearchState::Row &row, Column column);
QVariant sortValue(const SearchState &state, const SearchState::Row &row, Column column);
QVariant role(const SearchState &state, const SearchState::Row &row, Column column, int role);
QString toolTip(const SearchState::Row &row);
QString statusText(const SearchState::Row &row);
QString milliseconds(const std::optional<double> &ms); // "0.0536" with 4 significant digits, or empty
QString kind(const Candidate &candidate);

} // namespace CandidateText
