exports = async function (token) {
  const users = context.services.get("mongodb-atlas").db("product").collection("customUserData");
  return users.updateOne({ userId: context.user.id }, { $addToSet: { fcmTokens: token } }, { upsert: true });
};
