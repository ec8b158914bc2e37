exports = async function (changeEvent) {
  const topic = context.values.get("booksTopic");
  const title = (changeEvent.fullDocument || changeEvent.fullDocumentBeforeChange).title;
  const verb = changeEvent.operationType === "insert" ? "added" : "removed";
  return context.functions.execute("sendPush", { topic, notification: { title: `Book ${verb}`, body: title } });
};
