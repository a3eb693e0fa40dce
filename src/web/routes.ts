import { Hono } from "hono";
import type { AppEnv } from "../env";
import pages from "./pages";

const routes = new Hono<AppEnv>();
routes.route("/", pages);

export default routes;
