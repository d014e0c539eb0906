#include "store/plantable.h"

#include <QJsonArray>
#include <QJsonDocument>

namespace {
using C = PlanTable::Column;
constexpr PlanTable::Columns list({{{C::Id, "id"},
                                    {C::SessionId, "session_id"},
                                    {C::Iteration, "iteration"},
                                    {C::ParentCandidateId, "parent_candidate_id"},
                                    {C::PlanIndex, "plan_index"},
                                    {C::Title, "title"},
                                    {C::StepsJson, "steps_json"},
                                    {C::RawText, "raw_text"}}});
static_assert(list.inOrder());
} // namespace

const PlanTable::Columns &PlanTable::columns()
{
    return list;
}

PlanRecord PlanTable::read(const Statement &q, int first)
{
    const ColumnRow<C> row(q, first);
    PlanRecord p;
    p.id = row.text(C::Id);
    p.sessionId = row.text(C::SessionId);
    p.iteration = row.integer(C::Iteration);
    p.parentCandidateId = row.text(C::ParentCandidateId);
    p.planIndex = row.integer(C::PlanIndex);
    p.plan.title = row.text(C::Title);
    for (const QJsonValue &step : QJsonDocument::fromJson(row.text(C::StepsJson).toUtf8()).array())
        p.plan.steps.append(step.toString());
    p.plan.text = row.text(C::RawText);
    return p;
}

void PlanTable::bind(Statement &q, const PlanRecord &p)
{
    q.bind(list.placeholder(C::Id), p.id)
        .bind(list.placeholder(C::SessionId), p.sessionId)
        .bind(list.placeholder(C::Iteration), p.iteration)
        .bind(list.placeholder(C::ParentCandidateId), Statement::orNull(p.parentCandidateId))
        .bind(list.placeholder(C::PlanIndex), p.planIndex)
        .bind(list.placeholder(C::Title), p.plan.title)
        .bind(list.placeholder(C::StepsJson),
              QString::fromUtf8(
                  QJsonDocument(QJsonArray::fromStringList(p.plan.steps)).toJson(QJsonDocument::Compact)))
        .bind(list.placeholder(C::RawText), p.plan.text);
}
